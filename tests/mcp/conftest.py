"""Real MCP servers for the tests: the demo server over stdio and over streamable HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from wave_tui.mcp.config import HttpServer, StdioServer

DEMO = Path(__file__).resolve().parent / "servers" / "demo_server.py"
ROOT = Path(__file__).resolve().parents[2]


def stdio_demo(name: str = "demo", **env: str) -> StdioServer:
    return StdioServer(name, sys.executable, (str(DEMO),), env, Path("test"), "user")


def pids_in(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@dataclass
class Notes:
    lines: list[str] = field(default_factory=list)

    def __call__(self, line: str) -> None:
        self.lines.append(line)


@pytest.fixture
def notes() -> Notes:
    return Notes()


@dataclass
class HttpDemo:
    proc: subprocess.Popen[str]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def config(self, name: str = "web", **headers: str) -> HttpServer:
        return HttpServer(name, self.url, headers, Path("test"), "user")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def http_demo() -> Iterator[HttpDemo]:
    proc = subprocess.Popen(
        [sys.executable, str(DEMO), "--http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    assert line and line[0] == "PORT", line
    demo = HttpDemo(proc, int(line[1]))
    try:
        yield demo
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def text_of(result: Any) -> str:
    return str(result.content)
