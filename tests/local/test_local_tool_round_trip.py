"""A tool round trip on the real llama.cpp engine, through its chat-template path.

The bundled model is a tiny base model that never calls a tool by itself (and this engine build
does not constrain `tool_choice: "required"` with a grammar for it), so the proxy scripts only
the *answer* to the first request: the engine renders that request (its tools included) and
replies, and wave gets, in the engine's own stream shape, a `Read` call instead. The rest is
real: wave runs the Read tool, and the engine renders the second request — the assistant
message with the tool call and the tool result — through the same template and answers.
Only `Read` is offered: the prompt is then small enough for a CPU shared with other work.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

# The offline engine comes with the `local` extra, which both set-up commands install: without
# it these fail rather than skip.
import xllamacpp  # noqa: F401

from tests.local.proxy import RecordingProxy
from tests.local.test_local_engine import HANG_GUARD_S, SLOW_ENGINE, clean_env
from tests.wave_cli import WAVE
from wave_tui.llm.local_server import LocalModelServer, bundled_model_path


def only_read(index: int, body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "tools": [t for t in body["tools"] if t["function"]["name"] == "Read"]}


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    obj = {
        "choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
        "id": "chatcmpl-scripted",
        "model": "gemma-3-270m",
        "object": "chat.completion.chunk",
    }
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def read_call(index: int, reply: bytes) -> bytes:
    """The first reply becomes a Read call, streamed as llama.cpp streams tool calls."""
    if index != 0:
        return reply
    call = {
        "index": 0,
        "id": "call_read_1",
        "type": "function",
        "function": {"name": "Read", "arguments": json.dumps({"file_path": "a.txt"})},
    }
    return (
        chunk({"role": "assistant", "content": None})
        + chunk({"tool_calls": [call]})
        + chunk({}, "tool_calls")
        + b"data: [DONE]\n\n"
    )


@SLOW_ENGINE
def test_pv_a_read_round_trip_through_the_engines_chat_template(
    project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    gguf = bundled_model_path(tmp_path / "models")
    (project / "a.txt").write_text("alpha beta gamma\n")
    with (
        LocalModelServer(gguf, model_name="gemma-3-270m") as server,
        RecordingProxy(server.url, rewrite=only_read, script=read_call) as proxy,
    ):
        env = clean_env(
            isolated_home,
            WAVE_BASE_URL=f"{proxy.url}/v1",
            WAVE_MODEL=server.model_name,
            WAVE_API_KEY="local",
            WAVE_DISABLE_AUTO_MEMORY="1",
            WAVE_MAX_OUTPUT_TOKENS="4",
        )
        proc = subprocess.run(
            [*WAVE, "-p", "Read a.txt."],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD_S,
            stdin=subprocess.DEVNULL,
        )
    assert proc.returncode == 0, proc.stderr
    first, second = proxy.exchanges[0], proxy.exchanges[1]
    assert [t["function"]["name"] for t in first.body["tools"]] == ["Read"]
    assert first.usage is not None  # the engine rendered the first request, tools included
    (assistant,) = [m for m in second.body["messages"] if m.get("tool_calls")]
    assert assistant["tool_calls"][0]["function"]["name"] == "Read"
    (result,) = [m for m in second.body["messages"] if m.get("role") == "tool"]
    assert result["tool_call_id"] == "call_read_1"
    assert "alpha beta gamma" in str(result["content"])
    # The engine rendered the tool turn through its template and answered it.
    assert second.usage is not None
    assert second.usage["prompt_tokens"] > first.usage["prompt_tokens"]
    assert b"chat.completion.chunk" in second.reply
