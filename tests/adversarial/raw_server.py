"""A raw TCP model endpoint for fault injection: each request is handed, with its socket, to a
behaviour that may answer anything (or nothing) byte for byte."""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
from collections.abc import Callable
from typing import Any

# (request number from 1, parsed JSON body or None, the connection) -> None
Behaviour = Callable[[int, Any, socket.socket], None]


def sse(*chunks: dict[str, Any], done: bool = True) -> bytes:
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    return body + (b"data: [DONE]\n\n" if done else b"")


def delta(content: str | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    d: dict[str, Any] = {} if content is None else {"content": content}
    d.update(extra)
    return {"id": "c1", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": d, "finish_reason": finish}]}  # fmt: skip


def tool_delta(name: str, arguments: str, finish: bool = True) -> list[dict[str, Any]]:
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": name, "arguments": arguments}}  # fmt: skip
    chunks = [delta(tool_calls=[call])]
    if finish:
        chunks.append(delta(finish="tool_calls"))
    return chunks


def head(status: str = "200 OK", ctype: str = "text/event-stream", extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nConnection: close\r\n{extra}\r\n"
    ).encode()


def respond(conn: socket.socket, status: str, ctype: str, body: bytes, extra: str = "") -> None:
    conn.sendall(head(status, ctype, f"Content-Length: {len(body)}\r\n{extra}") + body)


def answer(conn: socket.socket, text: str = "OK") -> None:
    respond(conn, "200 OK", "text/event-stream", sse(delta(text), delta(finish="stop")))


def reset(conn: socket.socket) -> None:
    """Close with a TCP RST (SO_LINGER 0) instead of a clean FIN."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


class RawServer:
    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.count = 0
        self._lock = threading.Lock()
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        self._held: list[socket.socket] = []
        self._closing = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        while not self._closing:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        self._held.append(conn)
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                piece = conn.recv(65536)
                if not piece:
                    return
                data += piece
            header, _, rest = data.partition(b"\r\n\r\n")
            length = 0
            for line in header.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(rest) < length:
                piece = conn.recv(1 << 20)
                if not piece:
                    return
                rest += piece
            # Only chat requests are scripted and counted (a probe such as Ollama's /api/show
            # gets a 404, as from any server that is not Ollama).
            if (
                not header.startswith(b"POST")
                or b"/chat/completions" not in header.split(b"\r\n")[0]
            ):
                respond(conn, "404 Not Found", "application/json", b"{}")
                conn.close()
                return
            try:
                body = json.loads(rest)
            except ValueError:
                body = None
            with self._lock:
                self.count += 1
                n = self.count
            self.behaviour(n, body, conn)
            with contextlib.suppress(OSError):
                conn.close()
        except OSError:
            pass

    def close(self) -> None:
        self._closing = True
        self._sock.close()
        for conn in self._held:
            with contextlib.suppress(OSError):
                conn.close()
