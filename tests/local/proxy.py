"""A recording HTTP proxy between `wave` and the llama.cpp server.

Forwards every request (unchanged, or through `rewrite` for a chat request), buffers the reply,
and records each chat request's body as sent with the usage the engine reported (the last SSE
chunk carrying `usage`) and the raw reply.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from tests.extraction_helpers import is_fork


@dataclass(frozen=True)
class Exchange:
    body: dict[str, Any]
    usage: dict[str, Any] | None
    elapsed_s: float
    reply: bytes = b""

    @property
    def is_fork(self) -> bool:
        return is_fork(self.body)

    @property
    def prompt_tokens(self) -> int:
        return int((self.usage or {}).get("prompt_tokens") or 0)

    @property
    def cached_tokens(self) -> int:
        details = (self.usage or {}).get("prompt_tokens_details") or {}
        return int(details.get("cached_tokens") or 0)


def sse_usage(payload: bytes) -> dict[str, Any] | None:
    usage = None
    for line in payload.decode("utf-8", errors="replace").splitlines():
        if not line.startswith("data:") or line.strip() == "data: [DONE]":
            continue
        try:
            chunk = json.loads(line[5:])
        except json.JSONDecodeError:
            continue
        if isinstance(chunk, dict) and chunk.get("usage"):
            usage = chunk["usage"]
    return usage


class RecordingProxy:
    def __init__(
        self,
        upstream: str,
        rewrite: Callable[[int, dict[str, Any]], dict[str, Any]] | None = None,
        script: Callable[[int, bytes], bytes] | None = None,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.rewrite = rewrite  # (index of the chat request, its body) -> the body to send
        self.script = script  # (index, the engine's reply) -> the reply wave gets
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._http = httpx.Client(timeout=600)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()

    def forks(self) -> list[Exchange]:
        return [e for e in self.exchanges if e.is_fork]

    def mains(self) -> list[Exchange]:
        return [e for e in self.exchanges if not e.is_fork]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self._forward(self.rfile.read(length))

            def _forward(self, raw: bytes | None) -> None:
                headers = {"content-type": "application/json"}
                chat = bool(raw) and self.path.endswith("/chat/completions")
                with proxy._lock:
                    index = len(proxy.exchanges)
                if raw and chat and proxy.rewrite:
                    raw = json.dumps(proxy.rewrite(index, json.loads(raw))).encode()
                reply = proxy._http.request(
                    self.command, proxy.upstream + self.path, content=raw, headers=headers
                )
                if raw and chat:
                    exchange = Exchange(
                        json.loads(raw),
                        sse_usage(reply.content),
                        reply.elapsed.total_seconds(),
                        reply.content,
                    )
                    with proxy._lock:
                        proxy.exchanges.append(exchange)
                content = reply.content
                if chat and proxy.script is not None:
                    content = proxy.script(index, content)
                self.send_response(reply.status_code)
                kind = reply.headers.get("content-type", "application/json")
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

        return Handler
