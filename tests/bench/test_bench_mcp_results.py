"""How long a 100 MB MCP result takes to be cut, over stdio and over HTTP (MA8). Figures:
`pytest tests/bench/test_bench_mcp_results.py -m bench --benchmark-enable -s`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp.conftest import HttpDemo, serve_http_demo, stdio_demo
from wave_tui.mcp.config import ServerConfig
from wave_tui.mcp.manager import McpManager

HUGE = 100_000_000


@pytest.fixture
def http_server() -> Iterator[HttpDemo]:
    yield from serve_http_demo("--http")


def cut_once(config: ServerConfig, workdir: Path) -> None:
    async def run() -> None:
        manager = McpManager([config], workdir=workdir, notify=print, call_timeout=600)
        manager.start()
        await manager.wait_started()
        try:
            result = await manager.call(config.name, "big", {"chars": HUGE})
            assert result.is_error and "are read" in str(result.content)
        finally:
            await manager.aclose()

    asyncio.run(run())


def test_bench_mcp_huge_stdio_result(benchmark, project: Path) -> None:
    benchmark.pedantic(cut_once, args=(stdio_demo(), project), rounds=3, iterations=1)


def test_bench_mcp_huge_http_result(benchmark, project: Path, http_server: HttpDemo) -> None:
    benchmark.pedantic(cut_once, args=(http_server.config(), project), rounds=3, iterations=1)
