"""The endpoint's model list (`GET {base_url}/models`) for the `/model` picker (UX15): real HTTP
against the scripted server, and a listener that never answers for the bounded wait."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from tests.model_server import ModelServer
from wave_tui.llm.client import ModelClient
from wave_tui.llm.model_list import ModelListUnavailable, fetch_model_ids, model_ids, models_url
from wave_tui.llm.replies import ClientConfig


@pytest.mark.req("UX15")
async def test_ux15_list_models_reads_the_servers_list_with_the_key(
    model_server: ModelServer,
) -> None:
    client = ModelClient(ClientConfig(base_url=model_server.base_url, api_key="sk-1"))
    try:
        assert await client.list_models() == ("test-model", "fast", "smart")
    finally:
        await client.aclose()
    (get,) = model_server.gets
    assert get.path == "/v1/models"
    assert get.headers["authorization"] == "Bearer sk-1"
    assert get.headers["accept"] == "application/json"


def test_models_url_keeps_the_query_and_model_ids_keep_the_servers_order() -> None:
    url = models_url("https://x.example/openai/v1/?api-version=2024-10-21")
    assert str(url) == "https://x.example/openai/v1/models?api-version=2024-10-21"
    data = {"data": [{"id": "b"}, {"id": "a"}, {"id": "b"}, {"id": ""}, {"name": "c"}, 3]}
    assert model_ids(data) == ("b", "a")
    with pytest.raises(ModelListUnavailable, match="not a model list"):
        model_ids({"models": []})


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """A loopback port that accepts connections and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"


@pytest.mark.req("UX15")
async def test_ux15_an_endpoint_that_never_answers_is_given_up_after_the_bound(
    silent_listener: str,
) -> None:
    """UX15: the picker waits for the list only so long, then says why there is none."""
    async with httpx.AsyncClient() as http:
        with pytest.raises(ModelListUnavailable, match=r"no answer within 0.2 s"):
            await fetch_model_ids(http, silent_listener, timeout_s=0.2)


@pytest.mark.req("UX15")
async def test_ux15_an_error_answer_is_one_line(model_server: ModelServer) -> None:
    async with httpx.AsyncClient() as http:
        with pytest.raises(ModelListUnavailable, match=r"^HTTP 404$"):
            await fetch_model_ids(http, f"{model_server.base_url}/nope")
