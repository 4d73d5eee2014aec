"""The request bytes are the ones httpx's `json=` sends, whatever the big-string cache does."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent.service import AgentOptions
from wave_tui.llm import body_json
from wave_tui.llm.body_json import BIG_STRING, BodyEncoder
from wave_tui.llm.client import ClientConfig, ModelClient
from wave_tui.session.factory import create_service

URL = "http://127.0.0.1:9/v1/chat/completions"


def as_httpx_sends(body: Any) -> bytes:
    return httpx.Request("POST", URL, json=body).content


def big(word: str) -> str:
    return (word + "\n") * (BIG_STRING // len(word) + 1)


REMINDER = "<system-reminder>\n" + big('Always rule "é" \\ 漢字 🌊\t\x01') + "</system-reminder>"
READ = big("line of a long file")


def bodies(placeholder: str) -> list[dict[str, Any]]:
    system = {"role": "system", "content": [{"type": "text", "text": "static"}]}
    return [
        {"model": "m", "messages": [system, {"role": "user", "content": "hi"}]},
        {"model": "m", "messages": [system, {"role": "user", "content": REMINDER}], "tools": []},
        {
            "model": "m",
            "messages": [
                system,
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": REMINDER},
                        {"type": "text", "text": "read it", "cache_control": {"type": "x"}},
                    ],
                },
                {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
                {"role": "tool", "tool_call_id": "1", "content": READ},
                {
                    "role": "user",
                    "content": [{"type": "image_url"}, {"type": "text", "text": READ}],
                },
            ],
            "stream": True,
            "max_tokens": 5,
        },
        # The placeholder itself as a text, a key and a value: never split on, same bytes.
        {"model": "m", "messages": [{"role": "user", "content": REMINDER}, {placeholder: 1}]},
        {"model": "m", "messages": [{"role": "user", "content": REMINDER}], "x": placeholder},
        {"model": "m", "messages": [{"role": "user", "content": placeholder}, READ, 3]},
        {"model": "m", "messages": "not a list"},
        {"model": "m"},
    ]


def test_every_body_encodes_to_the_bytes_httpx_json_sends() -> None:
    encoder = BodyEncoder()
    cases = bodies(encoder._placeholder)
    for _ in range(2):  # the second time from the cache
        for body in cases:
            assert encoder.encode(body) == as_httpx_sends(body)


def test_a_big_string_that_comes_back_is_escaped_once(monkeypatch: pytest.MonkeyPatch) -> None:
    escaped: list[int] = []
    real = body_json.encode_basestring
    monkeypatch.setattr(body_json, "encode_basestring", lambda s: escaped.append(len(s)) or real(s))
    encoder = BodyEncoder()
    messages: list[dict[str, Any]] = [{"role": "user", "content": REMINDER}]
    for n in range(5):
        messages.append({"role": "user", "content": f"turn {n}"})
        body = {"model": "m", "messages": list(messages)}
        assert encoder.encode(body) == as_httpx_sends(body)
    assert escaped == [len(REMINDER)]
    edited = REMINDER + "x"  # a new reminder: escaped anew, the old one let go
    body = {"model": "m", "messages": [{"role": "user", "content": edited}]}
    assert encoder.encode(body) == as_httpx_sends(body)
    assert escaped == [len(REMINDER), len(edited)]
    assert [hit[0] for hit in encoder._strings.values()] == [edited]


async def test_the_client_sends_the_same_bytes_and_headers_as_with_json() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        chunk = {"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}
        stream = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream)

    config = ClientConfig(base_url="http://127.0.0.1:9/v1", api_key="k")
    client = ModelClient(config, transport=httpx.MockTransport(answer))
    body = bodies("")[2]
    await client.stream_chat(body)
    await client.stream_chat(body)
    wire = client.adapter.prepare(body)
    async with httpx.AsyncClient(headers=client._http.headers) as plain:
        expected = plain.build_request("POST", str(client._url), json=wire)
    await client.aclose()
    for request in sent:
        assert request.content == expected.content
        assert request.headers.multi_items() == expected.headers.multi_items()


def test_a_turn_with_a_big_memory_sends_what_json_would(
    model_server: ModelServer, project: Path
) -> None:
    """Whole requests of a real turn (reminder of 300 rules, long reads): each body's bytes are
    httpx's `json=` encoding of that body."""
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    for i in range(300):
        (rules / f"r{i:03d}.md").write_text(f"Always rule {i}: write tests first, é.\n")
    (project / "long.txt").write_text(READ)
    (project / "other.txt").write_text("short\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "long.txt"}),
        tool_call("Read", {"file_path": "other.txt"}),
        text("done"),
    )
    env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model"}
    env["WAVE_DISABLE_AUTO_MEMORY"] = "1"
    service = create_service(AgentOptions(workdir=project, environ=env))
    service.start()

    async def go() -> None:
        await service.run_turn("read both")
        await service.destroy()

    asyncio.run(go())
    assert len(model_server.requests) == 3
    for request in model_server.requests:
        assert len(request.raw) > BIG_STRING
        assert request.raw == as_httpx_sends(json.loads(request.raw))


@pytest.mark.req("SP5")
def test_sp5_messages_that_come_back_are_encoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[object] = []
    real = body_json.plain_json
    monkeypatch.setattr(body_json, "plain_json", lambda v: encoded.append(v) or real(v))
    encoder = BodyEncoder()
    history: list[dict[str, Any]] = [{"role": "user", "content": REMINDER}]
    for n in range(4):
        encoded.clear()
        history.append({"role": "user", "content": f"turn {n}", "n": [n, "é"]})
        body = {"model": "m", "messages": list(history), "stream": True}
        assert encoder.encode(body) == as_httpx_sends(body)
        messages = [v for v in encoded if isinstance(v, dict) and "role" in v]
        # Only the new message (the first body: both; the reminder with its big string swapped).
        assert len(messages) == (2 if n == 0 else 1) and messages[-1] is history[-1]
    body = {"model": "m", "messages": [dict(m) for m in history]}  # equal, but other dicts
    assert encoder.encode(body) == as_httpx_sends(body)
