"""Real MCP servers for the tests: the demo server over stdio and over streamable HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
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
    yield from serve_http_demo("--http")


@pytest.fixture
def stateless_http_demo() -> Iterator[HttpDemo]:
    """The demo server over streamable HTTP without sessions (FastMCP's `stateless_http`)."""
    yield from serve_http_demo("--http", "--stateless")


def serve_http_demo(*flags: str) -> Iterator[HttpDemo]:
    proc = subprocess.Popen(
        [sys.executable, str(DEMO), *flags],
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


OAUTH = Path(__file__).resolve().parent / "servers" / "oauth_server.py"


@dataclass
class OAuthDemo:
    """The OAuth-protected MCP server and its authorization server (one process, one port)."""

    proc: subprocess.Popen[str]
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def config(self, name: str = "secure") -> HttpServer:
        return HttpServer(name, self.url, {}, Path("test"), "user")

    def control(self, **settings: Any) -> None:
        request = urllib.request.Request(
            f"{self.base}/_control",
            data=json.dumps(settings).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200

    def stats(self) -> dict[str, int]:
        with urllib.request.urlopen(f"{self.base}/_stats", timeout=10) as response:
            stats: dict[str, int] = json.loads(response.read())
            return stats


def play_browser(url: str) -> str:
    """What the user's browser does: open the authorization URL, follow its redirect to wave's
    loopback listener, and return the page that listener answered."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as exc:  # the listener's 400 page for a refusal
        return str(exc.read().decode())


@pytest.fixture
def oauth_demo(monkeypatch: pytest.MonkeyPatch) -> Iterator[OAuthDemo]:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):  # never open a real browser
        monkeypatch.delenv(name, raising=False)
    proc = subprocess.Popen(
        [sys.executable, str(OAUTH)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    assert line and line[0] == "PORT", line
    try:
        yield OAuthDemo(proc, int(line[1]))
    finally:
        proc.kill()
        proc.wait(10)
