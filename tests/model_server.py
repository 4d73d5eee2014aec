"""A scripted OpenAI-compatible chat-completions server for tests.

Runs a real HTTP server on 127.0.0.1 in a background thread so that both in-process clients
and `wave -p` subprocesses talk to it over TCP. Replies are scripted with `text`, `tool_call`,
`tool_calls` and `error`; every chat request is recorded with deterministic prompt-cache
accounting so tests can prove which prefixes were reused.

Standalone: `python -m tests.model_server --port 0 [--reply TEXT]` prints `READY <base_url>`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import os
import re
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

UsageStyle = Literal["openai", "anthropic"]
Predicate = Callable[[dict[str, Any]], bool]
Responder = Callable[[dict[str, Any]], "Reply | None"]

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")
_ARG_PIECE = 12
_MODELS = ("test-model", "fast", "smart")


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """One scripted reply. Build with `text`, `tool_call`, `tool_calls` or `error`."""

    content: str = ""
    reasoning: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    status: int = 200
    error_body: dict[str, Any] | None = None
    retry_after: float | str | None = None
    delay: float = 0.0
    disconnect_after: int | None = None
    usage_style: UsageStyle = "openai"
    cut: bool = False  # finish_reason "length": the reply stopped at the output limit
    # The stream stops after its first chunk until this is set: a test sees "still streaming"
    # without racing a delay against the machine's load.
    hold: threading.Event | None = dataclasses.field(default=None, compare=False, repr=False)
    hold_at: int = 1  # the chunk that waits for `hold` (3: the role chunk and two words are out)

    def with_options(
        self,
        *,
        delay: float | None = None,
        disconnect_after: int | None = None,
        usage_style: UsageStyle | None = None,
    ) -> Reply:
        changes: dict[str, Any] = {}
        if delay is not None:
            changes["delay"] = delay
        if disconnect_after is not None:
            changes["disconnect_after"] = disconnect_after
        if usage_style is not None:
            changes["usage_style"] = usage_style
        return dataclasses.replace(self, **changes)

    @property
    def finish_reason(self) -> str:
        if self.cut:
            return "length"
        return "tool_calls" if self.tool_calls else "stop"


def text(
    content: str,
    reasoning: str | None = None,
    *,
    delay: float = 0.0,
    disconnect_after: int | None = None,
    usage_style: UsageStyle = "openai",
    hold: threading.Event | None = None,
    hold_at: int = 1,
) -> Reply:
    return Reply(
        content=content,
        reasoning=reasoning,
        delay=delay,
        disconnect_after=disconnect_after,
        usage_style=usage_style,
        hold=hold,
        hold_at=hold_at,
    )


def tool_call(
    name: str,
    arguments: dict[str, Any] | None = None,
    id: str | None = None,
    *,
    content: str = "",
    reasoning: str | None = None,
    delay: float = 0.0,
    disconnect_after: int | None = None,
    usage_style: UsageStyle = "openai",
    hold: threading.Event | None = None,
) -> Reply:
    return Reply(
        content=content,
        reasoning=reasoning,
        tool_calls=(ToolCall(name, dict(arguments or {}), id),),
        delay=delay,
        disconnect_after=disconnect_after,
        usage_style=usage_style,
        hold=hold,
    )


CallSpec = Reply | ToolCall | tuple[str, dict[str, Any]] | dict[str, Any]


def _as_calls(spec: CallSpec) -> list[ToolCall]:
    if isinstance(spec, Reply):
        return list(spec.tool_calls)
    if isinstance(spec, ToolCall):
        return [spec]
    if isinstance(spec, tuple):
        name, arguments = spec
        return [ToolCall(name, dict(arguments))]
    return [ToolCall(spec["name"], dict(spec.get("arguments") or {}), spec.get("id"))]


def tool_calls(
    calls: list[CallSpec],
    *,
    content: str = "",
    reasoning: str | None = None,
    delay: float = 0.0,
    disconnect_after: int | None = None,
    usage_style: UsageStyle = "openai",
) -> Reply:
    """Several calls in one reply; items may be `tool_call(...)`, `(name, args)` or dicts."""
    return Reply(
        content=content,
        reasoning=reasoning,
        tool_calls=tuple(c for spec in calls for c in _as_calls(spec)),
        delay=delay,
        disconnect_after=disconnect_after,
        usage_style=usage_style,
    )


def _error_type(status: int) -> str:
    if status == 429:
        return "rate_limit_error"
    if status in (401, 403):
        return "authentication_error"
    if status >= 500:
        return "server_error"
    return "invalid_request_error"


def error(
    status: int,
    body: dict[str, Any] | str | None = None,
    retry_after: float | str | None = None,
) -> Reply:
    """An HTTP error reply; a str body becomes the error message."""
    if not isinstance(body, dict):
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "scripted error"
        body = {"error": {"message": body or phrase, "type": _error_type(status)}}
    return Reply(status=status, error_body=body, retry_after=retry_after)


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    prompt_tokens: int
    cached_tokens: int
    reply: Reply
    raw: bytes = b""  # the body's bytes as they came over the wire


@dataclass(frozen=True)
class RecordedGet:
    path: str
    headers: dict[str, str]


def _strip_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache_control(v) for v in value]
    return value


def tokenize(body: dict[str, Any]) -> list[str]:
    """Deterministic prompt tokens: model, tools, then each message, cache_control removed."""
    pieces: list[Any] = [body.get("model"), body.get("tools") or []]
    pieces.extend(body.get("messages") or [])
    canonical = "".join(
        json.dumps(_strip_cache_control(p), sort_keys=True, ensure_ascii=False) for p in pieces
    )
    return _TOKEN_RE.findall(canonical)


class _PrefixTrie:
    """Every earlier token sequence of one model; the longest shared prefix in O(its length)."""

    def __init__(self) -> None:
        self._root: dict[str, Any] = {}

    def longest_prefix(self, tokens: list[str]) -> int:
        node, n = self._root, 0
        for tok in tokens:
            nxt = node.get(tok)
            if nxt is None:
                break
            node, n = nxt, n + 1
        return n

    def insert(self, tokens: list[str]) -> None:
        node = self._root
        for tok in tokens:
            nxt = node.get(tok)
            if nxt is None:
                nxt = node[tok] = {}
            node = nxt


def _split_words(s: str) -> list[str]:
    # Split where whitespace meets a word so the pieces concatenate back to the exact text.
    return [p for p in re.split(r"(?<=\s)(?=\S)", s) if p]


def _split_arguments(s: str) -> list[str]:
    size = min(_ARG_PIECE, max(1, len(s) // 2))
    return [s[i : i + size] for i in range(0, len(s), size)] or [""]


class _Disconnect(Exception):
    """Raised to abandon a response mid-stream."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: ModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, _Disconnect)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing -------------------------------------------------------------------------

    def _send_json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _not_found(self) -> None:
        self._send_json(
            404,
            {"error": {"message": f"no route for {self.command} {self.path}", "type": "not_found"}},
        )

    def _route(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    def _abort(self) -> None:
        # No terminating chunk: the client sees a truncated body, as with a dropped connection.
        # (A RST via SO_LINGER could discard chunks the client has not read yet.)
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise _Disconnect

    # -- routes ---------------------------------------------------------------------------

    def do_GET(self) -> None:
        self.server.owner._hit("GET", self.path)
        self.server.owner._record_get(self.path, {k.lower(): v for k, v in self.headers.items()})
        if self._route() in ("/v1/models", "/models"):
            created = int(time.time())
            data = [
                {"id": m, "object": "model", "created": created, "owned_by": "wave-tests"}
                for m in _MODELS
            ]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._not_found()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        self.server.owner._hit("POST", self.path)
        if self._route() not in ("/v1/chat/completions", "/chat/completions"):
            self._not_found()
            return
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("body must be a JSON object")
        except ValueError as exc:
            self._send_json(
                400, {"error": {"message": f"invalid JSON: {exc}", "type": "invalid_request_error"}}
            )
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        owner = self.server.owner
        record = owner._handle(self.path, headers, body, raw)
        try:
            self._respond(owner, record)
        except _Disconnect:
            self.close_connection = True

    def _respond(self, owner: ModelServer, record: RecordedRequest) -> None:
        reply, body = record.reply, record.body
        if reply.status >= 400:
            extra = {} if reply.retry_after is None else {"Retry-After": str(reply.retry_after)}
            self._send_json(reply.status, reply.error_body or {}, extra)
            return
        model = str(body.get("model") or "test-model")
        usage = _usage(record)
        if not body.get("stream"):
            if reply.disconnect_after is not None:
                self._abort()
            self._send_json(reply.status, _completion(reply, model, usage))
            return
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = list(_chunks(reply, model, usage if include_usage else None))
        for i, chunk in enumerate(chunks):
            if reply.disconnect_after is not None and i >= reply.disconnect_after:
                self.wfile.flush()
                self._abort()
            if i and reply.delay and owner._stopping.wait(reply.delay):
                self._abort()
            if i == reply.hold_at and reply.hold is not None:
                while not reply.hold.wait(0.05):
                    if owner._stopping.is_set():
                        self._abort()
            self._write_chunk(f"data: {json.dumps(chunk)}\n\n".encode())
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _usage(record: RecordedRequest) -> dict[str, Any]:
    reply = record.reply
    completion_text = (reply.reasoning or "") + reply.content
    completion_text += "".join(c.name + json.dumps(c.arguments) for c in reply.tool_calls)
    completion = len(_TOKEN_RE.findall(completion_text))
    prompt, cached = record.prompt_tokens, record.cached_tokens
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if reply.usage_style == "anthropic":
        usage["cache_read_input_tokens"] = cached
        usage["cache_creation_input_tokens"] = prompt - cached
    else:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return usage


def _envelope(model: str, rid: str, obj: str) -> dict[str, Any]:
    return {"id": rid, "object": obj, "created": int(time.time()), "model": model}


def _chunks(reply: Reply, model: str, usage: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    rid = f"chatcmpl-{uuid.uuid4().hex[:12]}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        env = _envelope(model, rid, "chat.completion.chunk")
        env["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
        return env

    yield chunk({"role": "assistant", "content": ""})
    for piece in _split_words(reply.reasoning or ""):
        yield chunk({"reasoning_content": piece})
    for piece in _split_words(reply.content):
        yield chunk({"content": piece})
    for index, call in enumerate(reply.tool_calls):
        head = {"index": index, "id": call.id, "type": "function"}
        yield chunk({"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]})
        for piece in _split_arguments(json.dumps(call.arguments, ensure_ascii=False)):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, reply.finish_reason)
    if usage is not None:
        env = _envelope(model, rid, "chat.completion.chunk")
        env["choices"] = []
        env["usage"] = usage
        yield env


def _completion(reply: Reply, model: str, usage: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in reply.tool_calls
        ]
    env = _envelope(model, f"chatcmpl-{uuid.uuid4().hex[:12]}", "chat.completion")
    env["choices"] = [{"index": 0, "message": message, "finish_reason": reply.finish_reason}]
    env["usage"] = usage
    return env


@dataclass
class _Queued:
    reply: Reply
    when: Predicate | None


@dataclass
class ModelServer:
    """Scripted chat-completions server; `start()`/`stop()` or use as a context manager."""

    host: str = "127.0.0.1"
    port: int = 0
    default_reply: Reply = field(default_factory=lambda: text("OK"))
    caching: bool = True
    responder: Responder | None = None
    # False: no token accounting (prompt tokens ≈ a quarter of the body's bytes, none cached),
    # for benchmarks whose big bodies the tokenizer would otherwise spend the server's time on.
    accounting: bool = True

    def __post_init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.hits: list[tuple[str, str]] = []  # (method, path) of every request, any route
        self.gets: list[RecordedGet] = []  # GET requests (the model list), apart from chats
        self._queue: list[_Queued] = []
        self._history: dict[Any, _PrefixTrie] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._call_ids = itertools.count(1)
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> ModelServer:
        self._stopping.clear()
        httpd = _HTTPServer((self.host, self.port), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self.port = httpd.server_address[1]
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ModelServer:
        return self if self._httpd is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def env(self, **extra: str) -> dict[str, str]:
        """A copy of os.environ pointing wave at this server, plus `extra`."""
        env = dict(os.environ)
        env.update(WAVE_BASE_URL=self.base_url, WAVE_API_KEY="test-key", WAVE_MODEL="test-model")
        env.update({k: str(v) for k, v in extra.items()})
        return env

    # -- scripting ------------------------------------------------------------------------

    def enqueue(self, *replies: Reply, when: Predicate | None = None) -> None:
        with self._lock:
            self._queue.extend(_Queued(r, when) for r in replies)

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """Forget requests, queued replies and cache history (keeps default/responder)."""
        with self._lock:
            self.requests.clear()
            self.hits.clear()
            self.gets.clear()
            self._queue.clear()
            self._history.clear()

    tokenize = staticmethod(tokenize)

    # -- recording ------------------------------------------------------------------------

    def wait_for_requests(self, n: int, timeout: float = 10) -> list[RecordedRequest]:
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.requests) >= n, timeout):
                raise TimeoutError(f"expected {n} requests, got {len(self.requests)}")
            return list(self.requests)

    @property
    def last_request(self) -> RecordedRequest:
        with self._lock:
            return self.requests[-1]

    def _hit(self, method: str, path: str) -> None:
        with self._lock:
            self.hits.append((method, path))

    def _pick(self, body: dict[str, Any]) -> Reply:
        for i, item in enumerate(self._queue):
            try:
                matches = item.when is None or bool(item.when(body))
            except Exception:
                matches = False
            if matches:
                return self._queue.pop(i).reply
        if self.responder is not None:
            reply = self.responder(body)
            if reply is not None:
                return reply
        return self.default_reply

    def _record_get(self, path: str, headers: dict[str, str]) -> None:
        with self._changed:
            self.gets.append(RecordedGet(path, headers))
            self._changed.notify_all()

    def _handle(
        self, path: str, headers: dict[str, str], body: dict[str, Any], raw: bytes = b""
    ) -> RecordedRequest:
        tokens = tokenize(body) if self.accounting else None
        model = body.get("model")
        with self._changed:
            reply = self._pick(body)
            if reply.tool_calls:
                calls = tuple(
                    c if c.id else dataclasses.replace(c, id=f"call_{next(self._call_ids)}")
                    for c in reply.tool_calls
                )
                reply = dataclasses.replace(reply, tool_calls=calls)
            if tokens is None:
                prompt, cached = len(raw) // 4, 0
            else:
                trie = self._history.setdefault(model, _PrefixTrie())
                prompt, cached = len(tokens), trie.longest_prefix(tokens) if self.caching else 0
                trie.insert(tokens)
            record = RecordedRequest(path, headers, body, prompt, cached, reply, raw)
            self.requests.append(record)
            self._changed.notify_all()
        return record


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    """A started `ModelServer`, stopped after the test."""
    with ModelServer() as server:
        yield server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible model server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reply", default="OK", help="text of the default reply")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds between chunks")
    args = parser.parse_args(argv)
    server = ModelServer(host=args.host, port=args.port, default_reply=text(args.reply))
    server.default_reply = server.default_reply.with_options(delay=args.delay)
    server.start()
    print(f"READY {server.base_url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
