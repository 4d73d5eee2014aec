"""A SearXNG-compatible search server on 127.0.0.1 for tests: `GET /search?q=…&format=json`
answers SearXNG's JSON, `/brave` Brave's, `POST /tavily` Tavily's; `html=True` answers a page
instead (a SearXNG without the json format). Every request is recorded."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

HITS = [
    ("Wave 7 release notes", "https://docs.wave.example/release/7", "Version 7 adds tasks."),
    ("Wave on Spam", "https://spam.example/wave", "Buy wave now."),
    ("Wave source", "https://github.com/wave/wave", "The source code of wave."),
]


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any] | None


@dataclass
class SearchServer:
    html: bool = False
    requests: list[Recorded] = field(default_factory=list)
    url: str = ""

    def answer(self, path: str) -> tuple[str, bytes]:
        if self.html:
            return "text/html", b"<html><body>Forbidden format</body></html>"
        if path.startswith("/brave"):
            items = [{"title": t, "url": u, "description": d} for t, u, d in HITS]
            return "application/json", json.dumps({"web": {"results": items}}).encode()
        items = [{"title": t, "url": u, "content": d} for t, u, d in HITS]
        return "application/json", json.dumps({"query": "q", "results": items}).encode()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _reply(self, body: dict[str, Any] | None) -> None:
        parts = urlsplit(self.path)
        owner = self.server.owner
        owner.requests.append(
            Recorded(self.command, parts.path, parse_qs(parts.query), dict(self.headers), body)
        )
        kind, data = owner.answer(parts.path)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._reply(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._reply(json.loads(self.rfile.read(length) or b"{}"))


class _Server(ThreadingHTTPServer):
    owner: SearchServer


@contextlib.contextmanager
def serving() -> Iterator[SearchServer]:
    """A started server on 127.0.0.1, stopped after."""
    owner = SearchServer()
    server = _Server(("127.0.0.1", 0), _Handler)
    server.owner = owner
    owner.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield owner
    finally:
        server.shutdown()
        server.server_close()
