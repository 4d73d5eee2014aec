"""X14: bounded waits and configuration errors that are said at once."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.model_server import ModelServer, error, text
from wave_tui.llm.client import ClientConfig, ModelClient, chat_url
from wave_tui.llm.errors import (
    ModelConfigError,
    ModelConnectionError,
    ModelHTTPError,
    ModelProtocolError,
)

BODY = {"model": "test-model", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.req("X14")
async def test_x14_crlf_in_a_header_is_a_configuration_error_with_no_request(
    model_server: ModelServer,
) -> None:
    client = ModelClient(
        ClientConfig(base_url=model_server.base_url, headers={"api-key": "a\r\nX-Evil: 1"})
    )
    with pytest.raises(ModelConfigError) as info:
        await client.stream_chat(BODY)
    await client.aclose()
    assert "api-key" in str(info.value) and model_server.requests == []


@pytest.mark.req("X14")
async def test_x14_retry_after_beyond_the_cap_gives_up_at_once_and_says_so(
    model_server: ModelServer,
) -> None:
    model_server.enqueue(error(429, "slow down", retry_after=3600), text("never"))
    client = ModelClient(ClientConfig(base_url=model_server.base_url, max_retry_time_s=30))
    with pytest.raises(ModelHTTPError) as info:
        await client.stream_chat(BODY)
    await client.aclose()
    assert "3600" in str(info.value) and "capped at 30 s" in str(info.value)
    assert len(model_server.requests) == 1


@pytest.mark.req("X14")
async def test_x14_a_server_that_never_answers_hits_the_first_byte_timeout() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(listener.accept()[0]), daemon=True).start()
    base = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    client = ModelClient(ClientConfig(base_url=base, first_byte_timeout_s=0.3, max_retries=0))
    with pytest.raises(ModelConnectionError) as info:
        await client.stream_chat(BODY)
    await client.aclose()
    for conn in held:
        conn.close()
    listener.close()
    assert "first-byte timeout" in str(info.value) and "WAVE_FIRST_BYTE_TIMEOUT" in str(info.value)


@pytest.mark.req("X14")
def test_x14_first_byte_timeout_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WAVE_FIRST_BYTE_TIMEOUT", "7.5")
    assert ClientConfig(base_url="http://x").first_byte_timeout_s == 7.5
    monkeypatch.setenv("WAVE_FIRST_BYTE_TIMEOUT", "soon")
    assert ClientConfig(base_url="http://x").first_byte_timeout_s == 120.0


@pytest.mark.req("PV7")
def test_pv7_chat_url_keeps_path_and_query() -> None:
    url = chat_url("https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21")
    assert str(url) == (
        "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21"
    )
    assert str(chat_url("http://h:1/v1/")) == "http://h:1/v1/chat/completions"
    assert str(chat_url("http://h/v1/chat/completions")) == "http://h/v1/chat/completions"


async def test_a_stream_without_choices_is_an_error_not_an_empty_answer(
    model_server: ModelServer,
) -> None:
    """Adversarial round: `data: [DONE]` alone, or chunks with `choices: []`, ended `wave -p`
    with exit 0 and nothing on stdout."""
    from tests.adversarial.raw_server import RawServer, respond

    for body in (b"data: [DONE]\n\n", b'data: {"choices": []}\n\ndata: [DONE]\n\n'):
        server = RawServer(lambda n, req, conn: respond(conn, "200 OK", "text/event-stream", body))  # noqa: B023
        client = ModelClient(ClientConfig(base_url=server.base_url, max_retries=0))
        with pytest.raises(ModelProtocolError, match="no choices"):
            await client.stream_chat(BODY)
        await client.aclose()
        server.close()


@pytest.mark.req("X14")
async def test_x14_a_port_beyond_65535_is_a_configuration_error() -> None:
    """Adversarial round: `http://127.0.0.1:99999/v1` ended `wave -p` with "unexpected error:
    ExceptionGroup" (the socket layer's OverflowError)."""
    client = ModelClient(ClientConfig(base_url="http://127.0.0.1:99999/v1", max_retries=0))
    with pytest.raises(ModelConfigError, match="port 99999"):
        await client.stream_chat(BODY)
    await client.aclose()


@pytest.mark.req("AC8")
async def test_ac8_an_abort_that_lands_as_the_headers_arrive_is_not_lost() -> None:
    """Esc pressed in the very loop step where the response headers arrive: the stream must
    still stop. (`asyncio.wait_for` on Python 3.11 returned the response and dropped the
    cancellation; the reply then streamed on until the server ended it.)"""
    released = asyncio.Event()

    async def endless() -> AsyncIterator[bytes]:
        yield b'data: {"choices":[{"delta":{"content":"hel"}}]}\n\n'
        await released.wait()  # a server that holds the rest of its reply
        yield b"data: [DONE]\n\n"

    turn: asyncio.Task[object] | None = None

    async def answer(request: httpx.Request) -> httpx.Response:
        assert turn is not None
        turn.cancel()  # the abort, in the step the headers come back
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=endless())

    client = ModelClient(
        ClientConfig(base_url="https://api.example.test/v1", max_retries=0),
        transport=httpx.MockTransport(answer),
    )
    turn = asyncio.create_task(client.stream_chat(BODY))
    try:
        with pytest.raises(asyncio.CancelledError):
            async with asyncio.timeout(5):  # the lost abort waited for `released`
                await turn
    finally:
        released.set()
        await client.aclose()
