"""What MCP servers ask of wave, against the real reference servers from npm: roots (MA1),
elicitation (MA3), progress and logs (MA4), task-only tools (MA5), resource templates (MA6), and
turns that wait for a starting server (MA9)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.features.mcp.everything import everything_entry, filesystem_entry, user_servers
from tests.model_server import ModelServer, text
from wave_tui.agent import events as ev
from wave_tui.agent.commands import CommandOutput
from wave_tui.files.read_state import ReadState
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions
from wave_tui.tools.base import ToolContext, ToolResult

Listener = Callable[[ev.AgentEvent], None]


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


async def started(project: Path, *, headless: bool = False) -> AgentSession:
    session = create_session(AgentOptions(workdir=project, headless=headless))
    session.start()
    await session.wait_tools_started()
    return session


@pytest.fixture
async def everything(project: Path) -> AsyncIterator[AgentSession]:
    user_servers({"ev": everything_entry()})
    session = await started(project)
    yield session
    await session.close()


async def call(session: AgentSession, tool: str, args: dict[str, Any]) -> ToolResult:
    service = session.service
    assert service is not None
    found = next(t for t in service.all_tools() if t.name == tool)
    return await found.run(args, ToolContext(workdir=service.workdir, read_state=ReadState()))


def answer_forms(
    session: AgentSession, reply: ev.ElicitationAnswer
) -> list[ev.ElicitationRequested]:
    asked: list[ev.ElicitationRequested] = []

    def listen(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ElicitationRequested):
            asked.append(event)
            event.future.set_result(reply)

    session.subscribe(listen)
    return asked


def raw_result(result: ToolResult) -> dict[str, Any]:
    content = result.content if isinstance(result.content, str) else str(result.content)
    start = content.index("{", content.index("Raw result"))
    found: dict[str, Any] = json.JSONDecoder().raw_decode(content[start:])[0]
    return found


@pytest.mark.req("MA3")
async def test_ma3_a_form_goes_to_the_front_end_and_omitted_fields_get_defaults(
    everything: AgentSession,
) -> None:
    asked = answer_forms(everything, ev.ElicitationAnswer("accept", {"name": "Ada", "integer": 7}))
    result = await call(everything, "mcp__ev__trigger-elicitation-request", {})
    assert not result.is_error, result.content
    (form,) = asked
    assert form.server == "ev" and "name" in form.schema["properties"]
    got = raw_result(result)
    assert got["action"] == "accept"
    assert got["content"]["name"] == "Ada" and got["content"]["integer"] == 7
    assert got["content"]["firstLine"] == "It was a dark and stormy night."
    assert got["content"]["number"] == 3.14 and got["content"]["titledSingleSelectEnum"] == "hero-1"


@pytest.mark.req("MA3")
async def test_ma3_wave_p_declines_a_form(project: Path) -> None:
    user_servers({"ev": everything_entry()})
    session = await started(project, headless=True)
    try:
        asked = answer_forms(session, ev.ElicitationAnswer("accept", {}))
        result = await call(session, "mcp__ev__trigger-elicitation-request", {})
        assert asked == []
        assert "decline" in str(result.content)
    finally:
        await session.close()


@pytest.mark.req("MA1")
async def test_ma1_a_filesystem_server_without_folders_reads_the_project_through_roots(
    project: Path, tmp_path: Path
) -> None:
    (project / "notes.txt").write_text("alpha beta\n")
    user_servers({"fs": filesystem_entry()})
    session = await started(project)
    try:
        # The server asks for the roots on its own after `initialized`: wait until it has them.
        allowed = ""
        while str(project.resolve()) not in allowed:
            listed = await call(session, "mcp__fs__list_allowed_directories", {})
            allowed = str(listed.content)
            await asyncio.sleep(0.05)
        read = await call(session, "mcp__fs__read_text_file", {"path": str(project / "notes.txt")})
        assert not read.is_error, read.content
        assert "alpha beta" in str(read.content)
        # The session moves into another folder (a worktree): the server is told, and the
        # folder becomes readable once the server has asked for the roots again.
        other = tmp_path / "worktree"
        other.mkdir()
        (other / "wt.txt").write_text("gamma\n")
        assert session.service is not None
        session.service.move_workdir(other)
        allowed = ""
        while str(other.resolve()) not in allowed:
            listed = await call(session, "mcp__fs__list_allowed_directories", {})
            allowed = str(listed.content)
            await asyncio.sleep(0.05)
        again = await call(session, "mcp__fs__read_text_file", {"path": str(other / "wt.txt")})
        assert "gamma" in str(again.content)
    finally:
        await session.close()


@pytest.mark.req("MA4")
async def test_ma4_progress_reaches_the_front_end_and_logs_reach_mcp(
    everything: AgentSession,
) -> None:
    lines: list[ev.ToolProgress] = []
    everything.subscribe(lambda e: lines.append(e) if isinstance(e, ev.ToolProgress) else None)
    result = await call(
        everything, "mcp__ev__trigger-long-running-operation", {"duration": 0.2, "steps": 2}
    )
    assert not result.is_error, result.content
    name = "mcp__ev__trigger-long-running-operation"
    assert [(e.name, e.text.split(" ")[0]) for e in lines] == [(name, "1/2"), (name, "2/2")]
    # The server logs (at info) that it received wave's roots; `/mcp` shows its log.
    output = ""
    while "Roots updated" not in output:
        answer = await everything.input.run_command("/mcp")
        assert isinstance(answer, CommandOutput)
        output = answer.text
        await asyncio.sleep(0.05)
    assert "  log:" in output


@pytest.mark.req("MA5")
async def test_ma5_task_only_tools_are_not_offered_and_mcp_says_so(
    everything: AgentSession,
) -> None:
    assert everything.service is not None
    names = {t.name for t in everything.service.all_tools()}
    assert "mcp__ev__echo" in names
    assert "mcp__ev__simulate-research-query" not in names
    answer = await everything.input.run_command("/mcp")
    assert isinstance(answer, CommandOutput)
    assert "not offered (they only run as tasks): simulate-research-query" in answer.text


@pytest.mark.req("MA6")
async def test_ma6_resource_templates_are_listed_and_complete(everything: AgentSession) -> None:
    listed = await call(everything, "ListMcpResources", {})
    content = str(listed.content)
    assert "Resource templates" in content
    assert "ev:demo://resource/dynamic/text/{resourceId}" in content
    assert everything.service is not None
    from wave_tui.features.mcp.wiring import mcp_of

    wiring = mcp_of(everything.service)
    assert wiring is not None
    _, names = wiring.complete_mention("@ev:demo://resource/dyn", ("", ()))
    assert "ev:demo://resource/dynamic/text/{resourceId}" in names


@pytest.mark.req("MA9")
async def test_ma9_a_turn_waits_for_a_server_still_starting(
    project: Path, tmp_path: Path, model_server: ModelServer
) -> None:
    gate = tmp_path / "gate"
    entry = everything_entry()
    command = " ".join([entry["command"], *entry["args"]])
    user_servers(
        {
            "slow": {
                "command": "sh",
                "args": ["-c", f"while [ ! -e {gate} ]; do sleep 0.02; done; exec {command}"],
            }
        }
    )
    environ = {**model_server.env(), "WAVE_DISABLE_AUTO_MEMORY": "1"}
    session = create_session(AgentOptions(workdir=project, environ=environ))
    notices: list[str] = []

    def listen(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.Notice):
            notices.append(event.text)
            if "waiting for MCP servers to start: slow" in event.text:
                gate.touch()  # the server may start now that the turn waits for it

    session.subscribe(listen)
    model_server.enqueue(text("ok"))
    try:
        session.start()
        await session.run_turn("hello")
        (request,) = [r for r in model_server.requests if r.path.endswith("/chat/completions")]
        tools = {t["function"]["name"] for t in request.body["tools"]}
        assert "mcp__slow__echo" in tools
    finally:
        gate.touch()
        await session.close()
