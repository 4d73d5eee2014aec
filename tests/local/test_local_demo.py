"""The bundled demo model's requests are brief (FH5): what reaches the engine, over real HTTP
(the scripted model server standing in for the engine, registered as `--local` registers the
bundled one). The real engine's turn is `test_local_engine.py`'s AC10 test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from wave_tui.agent.service import AgentOptions
from wave_tui.llm.local_demo import (
    DEMO_MAX_OUTPUT_TOKENS,
    forget_demo_engine,
    register_demo_engine,
)
from wave_tui.session.factory import create_service


@pytest.fixture
def demo(model_server: ModelServer) -> Iterator[ModelServer]:
    register_demo_engine(model_server.base_url)
    yield model_server
    forget_demo_engine(model_server.base_url)


async def one_turn(server: ModelServer, project: Path, prompt: str) -> dict[str, object]:
    (project / "AGENTS.md").write_text("- PROJECT-MEMORY-ITEM\n")
    env = server.env(WAVE_DISABLE_AUTO_MEMORY="1")
    service = create_service(AgentOptions(workdir=project, environ=env))
    server.enqueue(text("Four."))
    try:
        result = await service.run_turn(prompt)
    finally:
        await service.destroy()
    assert result.status == "completed" and result.text == "Four."
    (request,) = [r.body for r in server.requests if r.path.endswith("/chat/completions")]
    return request


@pytest.mark.req("FH5")
async def test_the_demo_model_gets_only_the_users_words_no_tools_and_a_short_cap(
    demo: ModelServer, project: Path
) -> None:
    body = await one_turn(demo, project, "what is 2+2?")
    messages = body["messages"]
    assert isinstance(messages, list) and [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == "what is 2+2?"  # no <system-reminder>, no AGENTS.md
    assert "tools" not in body
    assert body["max_tokens"] == DEMO_MAX_OUTPUT_TOKENS
    assert "<system-reminder>" in body["stop"]  # type: ignore[operator]


@pytest.mark.req("FH5")
async def test_any_other_endpoint_gets_the_agents_whole_request(
    model_server: ModelServer, project: Path
) -> None:
    body = await one_turn(model_server, project, "what is 2+2?")
    assert body["tools"] and "PROJECT-MEMORY-ITEM" in str(body["messages"])
    assert "stop" not in body
