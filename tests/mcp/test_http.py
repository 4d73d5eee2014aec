"""A real streamable-HTTP MCP server on 127.0.0.1 (the demo server in a subprocess) (MC1–MC7)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.mcp.conftest import HttpDemo, Notes
from wave_tui.mcp.config import load_servers
from wave_tui.mcp.manager import McpManager

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("MC1")


@pytest.fixture
async def web(http_demo: HttpDemo, project: Path, notes: Notes) -> AsyncIterator[McpManager]:
    data = {"mcpServers": {"web": {"type": "http", "url": "http://127.0.0.1:${PORT}/mcp"}}}
    config = load_servers(
        [(project / ".mcp.json", ".mcp.json", data)], {"PORT": str(http_demo.port)}
    )
    m = McpManager(config.servers, workdir=project, notify=notes, call_timeout=3)
    m.start()
    await m.wait_started()
    yield m
    await m.aclose()


@pytest.mark.req("MC3")
async def test_mc3_http_discovery_and_call(web: McpManager) -> None:
    (status,) = web.statuses()
    assert (status.kind, status.state) == ("http", "ready")
    assert "mcp__web__echo" in {t.name for t in web.tools()}
    echo = await web.call("web", "echo", {"text": "over http"})
    assert (echo.content, echo.is_error) == ("echo: over http", False)
    weather = await web.call("web", "weather", {"city": "Oslo"})
    assert '"city": "Oslo"' in weather.content
    assert web.system_sections(None)[0].endswith("Demo server: call echo to test the connection.")  # type: ignore[arg-type]


@pytest.mark.req("MC4")
async def test_mc4_http_error_result(web: McpManager) -> None:
    fail = await web.call("web", "fail", {"message": "nope"})
    assert fail.is_error and "nope" in fail.content


@pytest.mark.req("MC3")
async def test_mc3_http_list_changed_refreshes_the_list(web: McpManager) -> None:
    changed = asyncio.Event()
    web.subscribe(changed.set)
    assert (await web.call("web", "grow", {})).content == "grown"
    # Over HTTP the notification may come on the separate GET stream, after the result.
    while "mcp__web__added" not in {t.name for t in web.tools()}:
        changed.clear()
        await asyncio.wait_for(changed.wait(), 10)
    assert (await web.call("web", "added", {})).content == "added works"


@pytest.mark.req("MC7")
async def test_mc7_http_hang_times_out(web: McpManager, notes: Notes) -> None:
    hung = await web.call("web", "hang", {})
    assert hung.is_error and hung.content == "MCP server 'web' did not answer hang within 3 s"
    assert notes.lines == [hung.content]
    assert (await web.call("web", "echo", {"text": "ok"})).content == "echo: ok"


@pytest.mark.req("MC7")
async def test_mc7_http_server_gone_is_a_clean_error(
    web: McpManager, http_demo: HttpDemo, notes: Notes
) -> None:
    http_demo.kill()
    gone = await web.call("web", "echo", {"text": "x"})
    assert gone.is_error and "'web'" in gone.content
    assert len(notes.lines) == 1 and notes.lines[0].startswith("MCP server 'web' stopped: ")
    assert web.statuses()[0].state == "failed"


@pytest.mark.req("MC7")
async def test_mc7_http_server_not_listening_fails_to_start(project: Path, notes: Notes) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        data = {"mcpServers": {"down": {"url": f"http://127.0.0.1:{port}/mcp"}}}
        config = load_servers([(project / "s.json", "user", data)], {})
        m = McpManager(config.servers, workdir=project, notify=notes)
        m.start()
        await m.wait_started()
        await m.aclose()
    assert len(notes.lines) == 1
    assert notes.lines[0].startswith("MCP server 'down' failed to start: ")
