"""A huge result is cut in bounded time and memory over stdio and HTTP, the session goes on (MA8).

The call timeout is long on purpose: a result that were read whole (or not at all) would end
at that timeout with its own message, not with the size error these tests expect."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp.conftest import HttpDemo, Notes, serve_http_demo, stdio_demo
from wave_tui.mcp.manager import McpManager
from wave_tui.net.mcp_http import MCP_MESSAGE_MAX_BYTES

HUGE = 100_000_000  # characters of one result


@pytest.fixture
def json_http_demo() -> Iterator[HttpDemo]:
    yield from serve_http_demo("--http", "--json")


@pytest.fixture
def sse_http_demo() -> Iterator[HttpDemo]:
    yield from serve_http_demo("--http")


async def huge_then_echo(manager: McpManager, server: str) -> None:
    manager.start()
    await manager.wait_started()
    try:
        big = await manager.call(server, "big", {"chars": HUGE})
        assert big.is_error
        assert f"at most {MCP_MESSAGE_MAX_BYTES:,} are read" in str(big.content)
        echo = await manager.call(server, "echo", {"text": "still here"})
        assert not echo.is_error and "still here" in str(echo.content)
    finally:
        await manager.aclose()


@pytest.mark.req("MA8")
async def test_ma8_a_huge_stdio_result_is_cut(project: Path, notes: Notes) -> None:
    manager = McpManager([stdio_demo()], workdir=project, notify=notes, call_timeout=600)
    await huge_then_echo(manager, "demo")


@pytest.mark.req("MA8")
@pytest.mark.parametrize("transport", ["json", "sse"])
async def test_ma8_a_huge_http_result_is_cut(
    transport: str, request: pytest.FixtureRequest, project: Path, notes: Notes
) -> None:
    demo: HttpDemo = request.getfixturevalue(f"{transport}_http_demo")
    manager = McpManager([demo.config()], workdir=project, notify=notes, call_timeout=600)
    await huge_then_echo(manager, "web")
