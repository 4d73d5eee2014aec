"""MCP image results reach the model as image parts, never as base64 text (MA7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.image_files import all_image_urls, decode, texts_of
from tests.mcp.conftest import DEMO
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave


@pytest.mark.req("MA7")
def test_ma7_an_image_result_is_an_image_part_and_no_base64_text(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    entry = {"command": __import__("sys").executable, "args": [str(DEMO)]}
    settings.write_text(json.dumps({"mcpServers": {"demo": entry}}))
    model_server.enqueue(tool_call("mcp__demo__photo", {}), text("a green box"))

    proc = run_wave(
        "-p", "what is it?", "--allowedTools", "mcp__demo__photo", cwd=project, server=model_server
    )

    assert proc.returncode == 0, proc.stderr
    chats = [r for r in model_server.requests if r.path.endswith("/chat/completions")]
    after = chats[1].body
    (url,) = all_image_urls(after)
    media_type, _raw, image = decode(url)
    assert media_type == "image/png" and image.size == (64, 48)
    assert image.getpixel((10, 10)) == (30, 160, 90)
    # The base64 the server sent (in content and again in structured content) is not text of
    # any message: the tool's result says in one line what came.
    texts = [texts_of(m) for m in after["messages"] if m.get("role") in ("tool", "user")]
    assert any("[image result 1: 64×48]" in t for t in texts)
    assert max(len(t) for t in texts) < 2_000
