"""A real stdio MCP server (the demo FastMCP server) through the manager (MC2–MC4, MC7)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.mcp.conftest import Notes, stdio_demo
from wave_tui.agent.commands import CommandOutput, CommandRegistry
from wave_tui.agent.extensions import ContextSource, SessionObserver, ToolProvider
from wave_tui.features.mcp.command import mcp_command
from wave_tui.files.read_state import ReadState
from wave_tui.mcp.config import StdioServer
from wave_tui.mcp.manager import McpManager
from wave_tui.mcp.results import MCP_RESULT_MAX_CHARS
from wave_tui.tools.base import ToolContext


@pytest.fixture
async def manager(project: Path, notes: Notes) -> AsyncIterator[McpManager]:
    m = McpManager([stdio_demo(FOO="from-config")], workdir=project, notify=notes, call_timeout=3)
    m.start()
    await m.wait_started()
    yield m
    await m.aclose()


def ctx(project: Path) -> ToolContext:
    return ToolContext(workdir=project, read_state=ReadState())


async def run_tool(m: McpManager, name: str, args: dict[str, object], project: Path) -> object:
    tool = next(t for t in m.tools() if t.name == name)
    return await tool.run(dict(args), ctx(project))


@pytest.mark.req("MC3")
async def test_mc3_tools_are_named_per_server_with_their_schema(manager: McpManager) -> None:
    assert isinstance(manager, ToolProvider | ContextSource | SessionObserver)
    by_name = {t.name: t for t in manager.tools()}
    assert {"mcp__demo__echo", "mcp__demo__fail", "mcp__demo__grow"} <= set(by_name)
    echo = by_name["mcp__demo__echo"]
    assert echo.description == "Echo the text back."
    assert echo.parameters["type"] == "object"
    assert echo.parameters["properties"]["text"]["type"] == "string"
    assert echo.parameters["required"] == ["text"]
    assert echo.read_only is False  # hints never bypass approval
    (status,) = manager.statuses()
    assert status.state == "ready" and status.kind == "stdio" and "mcp__demo__echo" in status.tools


@pytest.mark.req("MC4")
async def test_mc4_call_text_error_structured_image_and_cap(
    manager: McpManager, project: Path
) -> None:
    echo = await run_tool(manager, "mcp__demo__echo", {"text": "hi"}, project)
    assert echo.content == "echo: hi" and not echo.is_error  # type: ignore[attr-defined]
    fail = await run_tool(manager, "mcp__demo__fail", {"message": "boom"}, project)
    assert fail.is_error and "boom" in fail.content  # type: ignore[attr-defined]
    weather = await run_tool(manager, "mcp__demo__weather", {"city": "Paris"}, project)
    assert weather.content == '{\n  "city": "Paris",\n  "celsius": 21\n}'  # type: ignore[attr-defined]
    picture = await run_tool(manager, "mcp__demo__picture", {}, project)
    # Not a decodable PNG: named with the reason, never sent as an image nor as base64.
    assert picture.content.startswith("[image result (image/png) — not shown to the model")  # type: ignore[attr-defined]
    big = await run_tool(manager, "mcp__demo__big", {"chars": MCP_RESULT_MAX_CHARS + 500}, project)
    content = big.content  # type: ignore[attr-defined]
    assert content.startswith("x" * MCP_RESULT_MAX_CHARS)
    assert f"cut at {MCP_RESULT_MAX_CHARS:,} of {MCP_RESULT_MAX_CHARS + 500:,}" in content


@pytest.mark.req("MC1")
async def test_mc1_the_configured_env_reaches_the_server(
    manager: McpManager, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    foo = await run_tool(manager, "mcp__demo__env", {"name": "FOO"}, project)
    assert foo.content == "from-config"  # type: ignore[attr-defined]
    home = await run_tool(manager, "mcp__demo__env", {"name": "XDG_CACHE_HOME"}, project)
    assert home.content.endswith(".cache")  # type: ignore[attr-defined]  # wave's own env, too


@pytest.mark.req("MC4")
async def test_mc4_server_instructions_join_the_dynamic_system_block(manager: McpManager) -> None:
    sections = manager.system_sections(None)  # type: ignore[arg-type]
    assert sections == [
        "# MCP server instructions\n\n## demo\nDemo server: call echo to test the connection."
    ]
    assert manager.system_sections(None) == sections  # type: ignore[arg-type]  # stable


@pytest.mark.req("MC3")
async def test_mc3_list_changed_takes_effect_from_the_next_request(
    manager: McpManager, project: Path
) -> None:
    assert "mcp__demo__added" not in {t.name for t in manager.tools()}
    grown = await run_tool(manager, "mcp__demo__grow", {}, project)
    assert grown.content == "grown"  # type: ignore[attr-defined]
    # No wait: the list is fresh by the time the call that changed it returns.
    added = await run_tool(manager, "mcp__demo__added", {}, project)
    assert added.content == "added works"  # type: ignore[attr-defined]


@pytest.mark.req("MC7")
async def test_mc7_a_hung_call_times_out_cleanly_and_the_server_stays(
    manager: McpManager, project: Path, notes: Notes
) -> None:
    hung = await run_tool(manager, "mcp__demo__hang", {}, project)
    assert hung.is_error  # type: ignore[attr-defined]
    assert hung.content == "MCP server 'demo' did not answer hang within 3 s"  # type: ignore[attr-defined]
    assert notes.lines == [hung.content]  # type: ignore[attr-defined]
    echo = await run_tool(manager, "mcp__demo__echo", {"text": "still"}, project)
    assert echo.content == "echo: still"  # type: ignore[attr-defined]


@pytest.mark.req("MC7")
async def test_mc7_a_crash_is_one_line_a_clean_error_and_restart_works(
    manager: McpManager, project: Path, notes: Notes
) -> None:
    crash = await run_tool(manager, "mcp__demo__crash", {}, project)
    assert crash.is_error  # type: ignore[attr-defined]
    assert "stopped during crash" in crash.content  # type: ignore[attr-defined]
    assert "crashing on purpose" in crash.content  # type: ignore[attr-defined]  # its stderr
    assert notes.lines == [
        "MCP server 'demo' stopped: the server exited (demo server: crashing on purpose)"
    ]
    (status,) = manager.statuses()
    assert status.state == "failed" and status.tools == ()
    assert manager.tools() == [] and manager.system_sections(None) == []  # type: ignore[arg-type]
    again = await manager.call("demo", "echo", {"text": "x"})
    assert again.is_error and "/mcp restart demo" in again.content

    registry = CommandRegistry()
    registry.register(mcp_command(manager))
    listing = await registry.dispatch("/mcp")
    assert isinstance(listing, CommandOutput)
    assert listing.text.splitlines() == [
        "demo (stdio): failed",
        "  last error: the server exited (demo server: crashing on purpose)",
    ]
    restarted = await registry.dispatch("/mcp restart demo")
    assert isinstance(restarted, CommandOutput) and not restarted.is_error
    assert restarted.text.startswith("demo (stdio): ready, 10 tools\n  mcp__demo__echo")
    echo = await run_tool(manager, "mcp__demo__echo", {"text": "back"}, project)
    assert echo.content == "echo: back"  # type: ignore[attr-defined]


@pytest.mark.req("MC7")
async def test_mc7_a_server_that_cannot_start_is_one_line_and_others_run(
    project: Path, notes: Notes
) -> None:
    broken = StdioServer("broken", "/nonexistent/mcp-server", (), {}, Path("t"), "user")
    m = McpManager([broken, stdio_demo()], workdir=project, notify=notes)
    m.start()
    await m.wait_started()
    try:
        assert notes.lines == [
            "MCP server 'broken' failed to start: cannot start /nonexistent/mcp-server: "
            "No such file or directory"
        ]
        assert {s.name: s.state for s in m.statuses()} == {"broken": "failed", "demo": "ready"}
        assert all(t.name.startswith("mcp__demo__") for t in m.tools())
        registry = CommandRegistry()
        registry.register(mcp_command(m))
        bad = await registry.dispatch("/mcp restart nope")
        assert bad == CommandOutput("no MCP server 'nope' (configured: broken, demo)", True)
    finally:
        await m.aclose()


@pytest.mark.req("MC7")
async def test_mc7_a_server_that_never_answers_initialize_fails_at_the_startup_timeout(
    project: Path, notes: Notes
) -> None:
    silent = StdioServer(
        "silent", sys.executable, ("-c", "import time; time.sleep(600)"), {}, Path("t"), "user"
    )
    m = McpManager([silent], workdir=project, notify=notes, startup_timeout=1)
    m.start()
    await m.wait_started()
    try:
        assert notes.lines == [
            "MCP server 'silent' failed to start: no answer to initialize within 1 s"
        ]
    finally:
        await m.aclose()


@pytest.mark.req("MC2")
async def test_mc2_start_returns_at_once_and_tools_appear_when_ready(
    project: Path, notes: Notes
) -> None:
    m = McpManager([stdio_demo()], workdir=project, notify=notes)
    changed = asyncio.Event()
    m.subscribe(changed.set)
    m.start()  # no await: the servers start in the background
    try:
        assert [s.state for s in m.statuses()] == ["starting"]
        assert m.tools() == []
        await m.wait_started()
        assert changed.is_set() and len(m.tools()) == 10
    finally:
        await m.aclose()
    assert [s.state for s in m.statuses()] == ["stopped"] and m.tools() == []
