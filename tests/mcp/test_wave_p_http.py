"""`wave -p` with a streamable-HTTP MCP server from the user's settings (MC1, MC3, MC5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mcp.conftest import HttpDemo
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("MC1", "MC5")


def echo_over_http(model_server: ModelServer, project: Path, entry: dict[str, object]) -> None:
    """One `wave -p` turn calling the demo server's echo through `entry` (user settings)."""
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": {"web": entry}}))
    model_server.enqueue(tool_call("mcp__web__echo", {"text": "over http"}), text("done"))
    proc = run_wave(
        "-p", "go", "--allowedTools", "mcp__web__echo", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    chats = [r.body for r in model_server.requests if r.path.endswith("/chat/completions")]
    tools = [m for m in chats[1]["messages"] if m.get("role") == "tool"]
    assert [m["content"] for m in tools] == ["echo: over http"]


@pytest.mark.req("MC3")
def test_mc3_wave_p_calls_a_tool_of_an_http_server(
    model_server: ModelServer, project: Path, http_demo: HttpDemo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    monkeypatch.setenv("DEMO_TOKEN", "t0k")
    entry = {"type": "http", "url": http_demo.url, "headers": {"X-Token": "${DEMO_TOKEN}"}}
    echo_over_http(model_server, project, entry)


@pytest.mark.req("MA13")
def test_ma13_wave_p_calls_a_tool_of_a_stateless_http_server(
    model_server: ModelServer,
    project: Path,
    stateless_http_demo: HttpDemo,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server without sessions (no session id, no GET stream: serverless deployments,
    FastMCP's `stateless_http`) works like a stateful one."""
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    echo_over_http(model_server, project, {"type": "http", "url": stateless_http_demo.url})
