"""Provider emulators: real HTTP on 127.0.0.1 that streams the way a provider streams and
answers a request it would reject with that provider's real error body.

`Emulator(rules=[...], style=Style(...))`: each rule looks at a request and returns
(status, body) when the provider would refuse it. Replies are scripted with `say` / `call`;
an unscripted request gets "OK". Every request is recorded (path, query, headers, body).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Rejection = tuple[int, dict[str, Any]]
Rule = Callable[["Seen"], Rejection | None]


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any] | str
    id: str = ""


@dataclass(frozen=True)
class Script:
    content: str = ""
    reasoning: str = ""
    calls: tuple[Call, ...] = ()
    finish_reason: str | None = None


def say(content: str, reasoning: str = "", finish_reason: str | None = None) -> Script:
    return Script(content=content, reasoning=reasoning, finish_reason=finish_reason)


def call(*calls: Call, reasoning: str = "", content: str = "") -> Script:
    return Script(content=content, reasoning=reasoning, calls=calls)


@dataclass(frozen=True)
class Style:
    """How the provider streams."""

    reasoning_field: str = "reasoning_content"
    tool_index: str = "openai"  # "openai" | "zero" (Ollama) | "none" (no index at all)
    repeat_name: bool = False  # the function name in every delta (Ollama, some proxies)
    usage: str = "openai"  # "openai" | "deepseek" | "none" (LM Studio) | "malformed"
    inline_think: bool = False  # reasoning as <think>…</think> inside content (vLLM, no parser)
    arg_piece: int = 7
    text_piece: int = 5
    fingerprint: str | None = None  # `system_fingerprint` of every chunk ("fp_ollama": Ollama)


@dataclass
class Seen:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])


@dataclass
class Emulator:
    rules: list[Rule] = field(default_factory=list)
    style: Style = field(default_factory=Style)
    chat_path: str = "/v1/chat/completions"
    get_routes: dict[str, dict[str, Any]] = field(default_factory=dict)
    post_routes: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    _queue: list[Script] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Emulator:
        handler = type("Handler", (_Handler,), {"emulator": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        return self.origin + self.chat_path.removesuffix("/chat/completions")

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WAVE_")}
        env.update(WAVE_BASE_URL=self.base_url, WAVE_API_KEY="k", WAVE_MODEL="m")
        env.update(extra)
        return env

    def script(self, *scripts: Script) -> None:
        with self._lock:
            self._queue.extend(scripts)

    def chats(self) -> list[Seen]:
        return [r for r in self.requests if r.path == self.chat_path]

    def _next(self) -> Script:
        with self._lock:
            return self._queue.pop(0) if self._queue else say("OK")


@contextlib.contextmanager
def running(emulator: Emulator) -> Iterator[Emulator]:
    emulator.start()
    try:
        yield emulator
    finally:
        emulator.stop()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    emulator: Emulator

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path in self.emulator.get_routes:
            self._json(200, self.emulator.get_routes[path])
        else:
            self._json(404, {"error": {"message": "Resource not found", "code": "404"}})

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        headers = {k.lower(): v for k, v in self.headers.items()}
        seen = Seen(parts.path, parse_qs(parts.query), headers, body)
        em = self.emulator
        em.requests.append(seen)
        if parts.path in em.post_routes:
            self._json(200, em.post_routes[parts.path])
            return
        if parts.path != em.chat_path:
            self._json(404, {"error": {"message": "Resource not found", "code": "404"}})
            return
        for rule in em.rules:
            rejection = rule(seen)
            if rejection is not None:
                em.rejected.append(rejection)
                self._json(*rejection)
                return
        self._stream(em._next(), body)

    def _stream(self, script: Script, body: dict[str, Any]) -> None:
        style = self.emulator.style
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        rid = f"chatcmpl-{uuid.uuid4().hex[:8]}"

        def send(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> None:
            chunk = {
                "id": rid,
                "object": "chat.completion.chunk",
                "model": body.get("model"),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            }
            if style.fingerprint is not None:
                chunk["system_fingerprint"] = style.fingerprint
            data = f"data: {json.dumps(chunk)}\n\n".encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

        thought, content = script.reasoning, script.content
        if style.inline_think and thought:
            content, thought = f"<think>{thought}</think>\n\n{content}", ""
        for i in range(0, len(thought), 5):
            send({style.reasoning_field: thought[i : i + 5]})
        step = style.text_piece
        for i in range(0, len(content), step):
            send({"content": content[i : i + step]})
        for n, c in enumerate(script.calls):
            args = c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments)
            pieces = [args[i : i + style.arg_piece] for i in range(0, len(args), style.arg_piece)]
            for k, piece in enumerate(pieces or [""]):
                delta: dict[str, Any] = {"function": {"arguments": piece}}
                if k == 0 or style.repeat_name:
                    delta["function"]["name"] = c.name
                if k == 0 or style.tool_index == "zero":
                    delta["id"] = c.id or f"call_{n}_{uuid.uuid4().hex[:6]}"
                    delta["type"] = "function"
                if style.tool_index == "openai":
                    delta["index"] = n
                elif style.tool_index == "zero":
                    delta["index"] = 0
                send({"tool_calls": [delta]})
        finish = script.finish_reason or ("tool_calls" if script.calls else "stop")
        send({}, finish)
        prompt = len(json.dumps(body.get("messages"))) // 4
        usage = {
            "openai": {
                "prompt_tokens": prompt,
                "completion_tokens": 9,
                "total_tokens": prompt + 9,
                "prompt_tokens_details": {"cached_tokens": prompt // 2},
            },
            "deepseek": {
                "prompt_tokens": prompt,
                "completion_tokens": 9,
                "total_tokens": prompt + 9,
                "prompt_cache_hit_tokens": prompt // 2,
                "prompt_cache_miss_tokens": prompt - prompt // 2,
            },
            "malformed": {"prompt_tokens": "n/a", "completion_tokens": None, "total_tokens": {}},
        }.get(style.usage)
        if usage is not None and (body.get("stream_options") or {}).get("include_usage"):
            chunk = {"id": rid, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            data = f"data: {json.dumps(chunk)}\n\n".encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        done = b"data: [DONE]\n\n"
        self.wfile.write(f"{len(done):x}\r\n".encode() + done + b"\r\n0\r\n\r\n")
        self.wfile.flush()
