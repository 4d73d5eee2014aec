"""Resources and prompts of a real stdio server (the demo server), and the SSE transport."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.mcp.conftest import DEMO, ROOT, Notes, stdio_demo
from wave_tui.agent.commands import CommandOutput, CommandRegistry, PromptExpansion
from wave_tui.features.mcp.mentions import complete_mention, mentions
from wave_tui.features.mcp.prompt_commands import PromptCommands
from wave_tui.features.mcp.resource_tools import ListMcpResourcesTool, ReadMcpResourceTool
from wave_tui.files.read_state import ReadState
from wave_tui.mcp.config import SseServer, load_servers
from wave_tui.mcp.manager import McpManager
from wave_tui.mcp.results import MCP_RESULT_MAX_CHARS
from wave_tui.tools.base import ToolContext

# Large enough to be cut many times over; the SDK's stdio reader is quadratic in a message's
# size (it re-joins its buffer per chunk), so 100 MB would take minutes in any client on it.
BIG_BYTES = 4 * 1024 * 1024  # large, but under the stdio guard's cap on one message (8 MiB)


@pytest.fixture
async def demo(project: Path, notes: Notes) -> AsyncIterator[McpManager]:
    m = McpManager([stdio_demo(DEMO_BIG_BYTES=str(BIG_BYTES))], workdir=project,
                   notify=notes, call_timeout=60)  # fmt: skip
    m.start()
    await m.wait_started()
    yield m
    await m.aclose()


def ctx(project: Path) -> ToolContext:
    return ToolContext(workdir=project, read_state=ReadState())


@pytest.mark.req("MO3")
async def test_mo3_list_and_read_resources(demo: McpManager, project: Path) -> None:
    assert demo.offers_resources()
    listed = await ListMcpResourcesTool(demo).run({}, ctx(project))
    assert listed.content.splitlines() == [
        "demo:demo://readme  readme — The demo readme",
        "demo:demo://big  big — A large text",
        "demo:demo://logo  logo",
    ]
    only = await ListMcpResourcesTool(demo).run({"server": "nope"}, ctx(project))
    assert only.is_error and "no MCP server 'nope'" in only.content
    read = await ReadMcpResourceTool(demo).run(
        {"server": "demo", "uri": "demo://readme"}, ctx(project)
    )
    assert (read.content, read.is_error) == ("Demo readme: the answer is 42.", False)
    logo = await ReadMcpResourceTool(demo).run(
        {"server": "demo", "uri": "demo://logo"}, ctx(project)
    )
    assert logo.content == "[demo://logo (image/png, 72 bytes) — binary content not shown]"
    missing = await ReadMcpResourceTool(demo).run(
        {"server": "demo", "uri": "demo://no"}, ctx(project)
    )
    assert missing.is_error and missing.content.startswith("demo: reading demo://no failed: ")
    assert ListMcpResourcesTool.read_only and ReadMcpResourceTool.read_only


@pytest.mark.req("MO3")
async def test_mo3_a_large_resource_is_capped_like_a_tool_result(
    demo: McpManager, project: Path
) -> None:
    big = await ReadMcpResourceTool(demo).run({"server": "demo", "uri": "demo://big"}, ctx(project))
    assert not big.is_error
    assert len(big.content) < MCP_RESULT_MAX_CHARS + 200
    assert big.content.endswith(
        f"[MCP result cut at {MCP_RESULT_MAX_CHARS:,} of {BIG_BYTES:,} characters "
        "(MCP_RESULT_MAX_CHARS); ask the tool for less]"
    )


@pytest.mark.req("MO3")
def test_mo3_mentions_and_completion() -> None:
    found = mentions("see @demo:demo://readme, and @x:y and @demo:demo://readme", ["demo"])
    assert [(m.server, m.uri) for m in found] == [("demo", "demo://readme")]
    names = ["demo:demo://readme", "demo:demo://big"]
    assert complete_mention("look @demo:demo://r", ("look @demo:demo://r", ()), names) == (
        "look @demo:demo://readme",
        (),
    )
    assert complete_mention("look @dem", ("look @dem", ("demo.txt",)), names) == (
        "look @dem",
        ("demo.txt", *names),
    )


@pytest.mark.req("MO4")
async def test_mo4_prompts_are_commands_with_position_and_name_arguments(
    demo: McpManager,
) -> None:
    registry = CommandRegistry()
    registry.add_provider(PromptCommands(demo))
    review = registry.get("mcp__demo__review")
    assert review is not None
    assert (review.description, review.argument_hint) == (
        "Review a file for one kind of problem",
        "<file> [focus]",
    )
    assert [c.name for c in registry.complete("mcp__demo")] == [
        "mcp__demo__greet",
        "mcp__demo__review",
    ]
    by_position = await registry.dispatch("/mcp__demo__review src/a.py speed")
    assert by_position == PromptExpansion("Please review src/a.py, looking for speed.")
    by_name = await registry.dispatch("/mcp__demo__review focus=style file=b.py")
    assert by_name == PromptExpansion("Please review b.py, looking for style.")
    rest = await registry.dispatch('/mcp__demo__review "my file.py" memory leaks')
    assert rest == PromptExpansion("Please review my file.py, looking for memory leaks.")
    unknown = await registry.dispatch("/mcp__demo__review a.py colour=red")
    assert unknown == CommandOutput(
        "/mcp__demo__review: unknown argument 'colour' (arguments: file, focus)", True
    )
    missing = await registry.dispatch("/mcp__demo__review")
    assert missing == CommandOutput("/mcp__demo__review: missing required argument file", True)
    extra = await registry.dispatch("/mcp__demo__greet now")
    assert extra == CommandOutput("/mcp__demo__greet takes no more arguments (got 'now')", True)


@pytest.fixture
def sse_demo() -> Iterator[int]:
    proc = subprocess.Popen(
        [sys.executable, str(DEMO), "--sse"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    assert line and line[0] == "PORT", line
    try:
        yield int(line[1])
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.req("MO5")
async def test_mo5_sse_server_tools_resources_and_prompts(
    sse_demo: int, project: Path, notes: Notes
) -> None:
    data = {"mcpServers": {"old": {"type": "sse", "url": f"http://127.0.0.1:{sse_demo}/sse"}}}
    config = load_servers([(project / "s.json", "user", data)], {})
    (server,) = config.servers
    assert isinstance(server, SseServer)
    m = McpManager(config.servers, workdir=project, notify=notes, call_timeout=10)
    m.start()
    await m.wait_started()
    try:
        (status,) = m.statuses()
        assert (status.kind, status.state) == ("sse", "ready"), status
        echo = await m.call("old", "echo", {"text": "over sse"})
        assert echo.content == "echo: over sse"
        read = await m.read_resource("old", "demo://readme")
        assert read.content == "Demo readme: the answer is 42."
        assert [p.name for _, p in m.prompts()] == ["review", "greet"]
    finally:
        await m.aclose()
    assert notes.lines == []
