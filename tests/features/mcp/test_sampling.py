"""`sampling/createMessage` from the real server-everything (MA2): approved like a tool call
`McpSampling(server)`, answered by the session's model in a request of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.mcp.everything import everything_entry, user_servers
from tests.features.mcp.test_client_features import call
from tests.model_server import ModelServer, text
from tests.wire_view import chats
from wave_tui.agent import events as ev
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions

TOOL = "mcp__ev__trigger-sampling-request"


async def session_with(
    project: Path, model_server: ModelServer, *, headless: bool, allowed: tuple[str, ...] = ()
) -> AgentSession:
    user_servers({"ev": everything_entry()})
    environ = {**model_server.env(), "WAVE_DISABLE_AUTO_MEMORY": "1"}
    options = AgentOptions(
        workdir=project, environ=environ, headless=headless, allowed_tools=allowed
    )
    session = create_session(options)
    session.start()
    await session.wait_tools_started()
    return session


@pytest.mark.req("MA2")
async def test_ma2_wave_p_refuses_sampling_without_a_rule(
    project: Path, model_server: ModelServer
) -> None:
    session = await session_with(project, model_server, headless=True)
    try:
        result = await call(session, TOOL, {"prompt": "say hi"})
        assert "sampling refused" in str(result.content)
        assert chats(model_server) == []
    finally:
        await session.close()


@pytest.mark.req("MA2")
async def test_ma2_a_rule_lets_the_session_model_answer_in_wave_p(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(text("sampled words"))
    session = await session_with(project, model_server, headless=True, allowed=("McpSampling(ev)",))
    try:
        result = await call(session, TOOL, {"prompt": "say hi", "maxTokens": 50})
        assert "sampled words" in str(result.content), result.content
        (body,) = chats(model_server)
        assert body["model"] == "test-model"
        assert body["messages"][-1] == {  # type: ignore[index]
            "role": "user",
            "content": "Resource trigger-sampling-request context: say hi",
        }
        assert session.messages() == []  # the conversation never sees it
    finally:
        await session.close()


@pytest.mark.req("MA2")
async def test_ma2_the_app_asks_the_user_first(project: Path, model_server: ModelServer) -> None:
    session = await session_with(project, model_server, headless=False)
    asked: list[ev.PermissionRequested] = []

    def listen(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PermissionRequested):
            asked.append(event)
            event.future.set_result(ev.PermissionAnswer("deny"))

    session.subscribe(listen)
    try:
        result = await call(session, TOOL, {"prompt": "say hi"})
        (question,) = asked
        assert question.tool_name == "McpSampling" and question.args["server"] == "ev"
        assert "say hi" in question.args["prompt"]
        assert "sampling refused" in str(result.content)
        assert chats(model_server) == []
    finally:
        await session.close()
