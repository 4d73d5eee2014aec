"""Tests for the scripted model server every other test relies on."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from tests.model_server import ModelServer, error, text, tool_call, tool_calls

ROOT = Path(__file__).resolve().parent.parent


def _body(messages: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "test-model",
        "messages": messages or [{"role": "user", "content": "hi"}],
        "stream": True,
    }
    body.update(extra)
    return body


def _stream(server: ModelServer, body: dict[str, Any]) -> list[dict[str, Any]]:
    """All JSON chunks of a streamed reply; asserts it ends with [DONE]."""
    chunks: list[dict[str, Any]] = []
    with (
        httpx.Client(timeout=5) as client,
        connect_sse(client, "POST", f"{server.base_url}/chat/completions", json=body) as es,
    ):
        assert es.response.headers["content-type"].startswith("text/event-stream")
        data = [sse.data for sse in es.iter_sse()]
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    return chunks


def _reassemble(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    content, reasoning, finish = "", "", None
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        assert chunk["object"] == "chat.completion.chunk"
        for choice in chunk["choices"]:
            delta = choice["delta"]
            content += delta.get("content") or ""
            reasoning += delta.get("reasoning_content") or ""
            for tc in delta.get("tool_calls") or []:
                slot = calls.setdefault(tc["index"], {"id": "", "name": "", "arguments": ""})
                slot["id"] += tc.get("id") or ""
                slot["name"] += (tc.get("function") or {}).get("name") or ""
                slot["arguments"] += (tc.get("function") or {}).get("arguments") or ""
            finish = choice["finish_reason"] or finish
    return {
        "content": content,
        "reasoning": reasoning,
        "calls": [calls[i] for i in sorted(calls)],
        "finish": finish,
    }


def _post(server: ModelServer, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=5)


def test_streaming_text_reassembles(model_server: ModelServer) -> None:
    model_server.enqueue(text("Hello there, brave new world.", reasoning="Think  first."))
    chunks = _stream(model_server, _body())
    content_chunks = [c for c in chunks if c["choices"] and c["choices"][0]["delta"].get("content")]
    assert len(content_chunks) > 1
    out = _reassemble(chunks)
    assert out["content"] == "Hello there, brave new world."
    assert out["reasoning"] == "Think  first."
    assert out["finish"] == "stop"
    assert model_server.requests[0].body["messages"][0]["content"] == "hi"


def test_default_reply_and_non_stream(model_server: ModelServer) -> None:
    resp = _post(model_server, _body(stream=False))
    assert resp.status_code == 200
    data = resp.json()
    assert data["choices"][0]["message"]["content"] == "OK"
    assert data["usage"]["prompt_tokens"] == model_server.requests[0].prompt_tokens
    model_server.default_reply = text("changed")
    assert _reassemble(_stream(model_server, _body()))["content"] == "changed"


def test_tool_call_deltas_reassemble(model_server: ModelServer) -> None:
    args = {"path": "src/main.py", "content": "print('hello world')\n"}
    model_server.enqueue(
        tool_calls([tool_call("write_file", args, id="call_a"), ("read_file", {"path": "x"})])
    )
    chunks = _stream(model_server, _body())
    arg_deltas = [
        tc
        for c in chunks
        for tc in c["choices"][0]["delta"].get("tool_calls") or []
        if tc["index"] == 0 and "id" not in tc
    ]
    assert len(arg_deltas) > 1
    out = _reassemble(chunks)
    assert out["finish"] == "tool_calls"
    first, second = out["calls"]
    assert first["id"] == "call_a" and first["name"] == "write_file"
    assert json.loads(first["arguments"]) == args
    assert second["name"] == "read_file" and second["id"].startswith("call_")
    assert json.loads(second["arguments"]) == {"path": "x"}
    assert model_server.requests[0].reply.tool_calls[1].id == second["id"]


def test_usage_chunk_only_with_include_usage(model_server: ModelServer) -> None:
    plain = _stream(model_server, _body())
    assert all(c["choices"] and "usage" not in c for c in plain)
    with_usage = _stream(model_server, _body(stream_options={"include_usage": True}))
    last = with_usage[-1]
    assert last["choices"] == []
    usage = last["usage"]
    assert usage["prompt_tokens"] == model_server.requests[1].prompt_tokens
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["prompt_tokens_details"]["cached_tokens"] == model_server.requests[1].cached_tokens


def test_cached_tokens_equal_shared_prefix(model_server: ModelServer) -> None:
    first = _body(
        [{"role": "system", "content": "You are wave."}, {"role": "user", "content": "a"}]
    )
    second = _body([*first["messages"], {"role": "assistant", "content": "OK"}])
    third = _body([{"role": "system", "content": "Different."}, {"role": "user", "content": "a"}])
    for body in (first, second, third):
        _post(model_server, body)
    r1, r2, r3 = model_server.wait_for_requests(3)
    assert r1.cached_tokens == 0
    assert r1.prompt_tokens == len(model_server.tokenize(first))
    t1, t2, t3 = (model_server.tokenize(b) for b in (first, second, third))
    assert t2[: len(t1)] == t1
    assert r2.cached_tokens == len(t1)
    assert r2.prompt_tokens == len(t2)
    # A different first message shares only model, tools and the message's leading syntax
    # (`{"content": "`), never any of its text.
    head = len(model_server.tokenize({"model": "test-model"}))
    assert r3.cached_tokens == head + len(["{", '"', "content", '"', ":", '"'])
    assert t3[r3.cached_tokens] != t1[r3.cached_tokens]


def test_cache_control_does_not_change_tokens(model_server: ModelServer) -> None:
    plain = _body([{"role": "user", "content": [{"type": "text", "text": "hello"}]}])
    marked = _body(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}
                ],
            }
        ]
    )
    assert model_server.tokenize(plain) == model_server.tokenize(marked)
    _post(model_server, plain)
    _post(model_server, marked)
    r1, r2 = model_server.wait_for_requests(2)
    assert r1.prompt_tokens == r2.prompt_tokens == r2.cached_tokens


def test_caching_disabled_and_other_model(model_server: ModelServer) -> None:
    _post(model_server, _body())
    _post(model_server, _body(model="fast"))
    assert model_server.requests[1].cached_tokens == 0
    model_server.caching = False
    resp = _post(model_server, _body(stream=False))
    assert model_server.requests[2].cached_tokens == 0
    assert resp.json()["usage"]["prompt_tokens_details"]["cached_tokens"] == 0


def test_error_with_retry_after(model_server: ModelServer) -> None:
    model_server.enqueue(error(429, "slow down", retry_after=2), error(500))
    resp = _post(model_server, _body())
    assert resp.status_code == 429
    assert resp.headers["retry-after"] == "2"
    assert resp.json() == {"error": {"message": "slow down", "type": "rate_limit_error"}}
    resp = _post(model_server, _body())
    assert resp.status_code == 500
    assert "retry-after" not in resp.headers
    assert resp.json()["error"]["type"] == "server_error"
    assert _post(model_server, _body(stream=False)).status_code == 200


def test_disconnect_after_closes_without_done(model_server: ModelServer) -> None:
    model_server.enqueue(text("one two three four five six", disconnect_after=3))
    lines: list[str] = []
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream(
            "POST", f"{model_server.base_url}/chat/completions", json=_body(), timeout=5
        ) as resp,
    ):
        lines.extend(line for line in resp.iter_lines() if line)
    assert len(lines) == 3
    assert all(line != "data: [DONE]" for line in lines)
    # The server survives the dropped connection.
    assert _reassemble(_stream(model_server, _body()))["content"] == "OK"


def test_slow_stream_delay(model_server: ModelServer) -> None:
    model_server.enqueue(text("a b c", delay=0.05))
    start = time.monotonic()
    assert _reassemble(_stream(model_server, _body()))["content"] == "a b c"
    assert time.monotonic() - start >= 0.15


def test_when_predicate_routing(model_server: ModelServer) -> None:
    model_server.enqueue(text("fast reply"), when=lambda body: body["model"] == "fast")
    model_server.enqueue(text("first"), text("second"))
    model_server.responder = lambda body: text(f"dynamic {len(body['messages'])}")
    assert _reassemble(_stream(model_server, _body()))["content"] == "first"
    assert _reassemble(_stream(model_server, _body(model="fast")))["content"] == "fast reply"
    assert _reassemble(_stream(model_server, _body(model="fast")))["content"] == "second"
    assert _reassemble(_stream(model_server, _body()))["content"] == "dynamic 1"
    assert model_server.pending == 0


def test_anthropic_usage_style(model_server: ModelServer) -> None:
    _post(model_server, _body())
    model_server.enqueue(text("hi", usage_style="anthropic"))
    resp = _post(model_server, _body(stream=False))
    usage = resp.json()["usage"]
    record = model_server.requests[1]
    assert usage["cache_read_input_tokens"] == record.cached_tokens == record.prompt_tokens
    assert usage["cache_creation_input_tokens"] == 0
    assert "prompt_tokens_details" not in usage


def test_models_404_headers_reset(model_server: ModelServer) -> None:
    models = httpx.get(f"{model_server.base_url}/models", timeout=5)
    assert models.status_code == 200 and models.json()["data"]
    missing = httpx.get(f"{model_server.base_url}/nope", timeout=5)
    assert missing.status_code == 404 and "error" in missing.json()
    httpx.post(
        f"{model_server.base_url}/chat/completions",
        json=_body(),
        headers={"Authorization": "Bearer test-key"},
        timeout=5,
    )
    assert model_server.last_request.headers["authorization"] == "Bearer test-key"
    assert model_server.last_request.path == "/v1/chat/completions"
    model_server.reset()
    assert model_server.requests == []
    env = model_server.env(WAVE_EXTRA="1")
    assert env["WAVE_BASE_URL"] == model_server.base_url and env["WAVE_EXTRA"] == "1"


def test_context_manager_and_stop_during_slow_stream() -> None:
    with ModelServer() as server:
        server.enqueue(text("a b c d e f", delay=5))
        with httpx.stream(
            "POST", f"{server.base_url}/chat/completions", json=_body(), timeout=5
        ) as resp:
            assert resp.status_code == 200
            start = time.monotonic()
            server.stop()
            with pytest.raises(httpx.RemoteProtocolError):
                resp.read()
            assert time.monotonic() - start < 3


def test_standalone_prints_ready() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.model_server", "--port", "0", "--reply", "hey there"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("READY http://127.0.0.1:")
        base_url = line.split()[1]
        resp = httpx.post(f"{base_url}/chat/completions", json=_body(stream=False), timeout=5)
        assert resp.json()["choices"][0]["message"]["content"] == "hey there"
    finally:
        proc.terminate()
        proc.wait(timeout=5)
