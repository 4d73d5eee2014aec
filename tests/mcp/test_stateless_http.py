"""A stateless streamable-HTTP MCP server (no session id, no GET stream: serverless deployments,
FastMCP's `stateless_http`) works like a stateful one through `wave -p` (MA13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mcp.conftest import HttpDemo
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave


@pytest.mark.req("MA13")
def test_ma13_wave_p_calls_a_tool_of_a_stateless_http_server(
    model_server: ModelServer,
    project: Path,
    stateless_http_demo: HttpDemo,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    entry = {"type": "http", "url": stateless_http_demo.url}
    settings.write_text(json.dumps({"mcpServers": {"web": entry}}))
    model_server.enqueue(tool_call("mcp__web__echo", {"text": "no session"}), text("done"))

    proc = run_wave(
        "-p", "go", "--allowedTools", "mcp__web__echo", cwd=project, server=model_server
    )

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    chats = [r.body for r in model_server.requests if r.path.endswith("/chat/completions")]
    tools = [m for m in chats[1]["messages"] if m.get("role") == "tool"]
    assert [m["content"] for m in tools] == ["echo: no session"]
