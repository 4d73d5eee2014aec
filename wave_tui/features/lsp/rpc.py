"""JSON-RPC 2.0 over a language server's stdio: `Content-Length` framing, requests with a
bounded wait, notifications, and answers to the few requests a server sends the client.

Plain dicts in and out (the typed layer is `server.py`, with `lsprotocol`). Anything that is not
a well-formed frame — a missing header, a body that is not JSON — ends the connection with one
`RpcError` for every pending request: a server that talks garbage is not to be trusted further.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

MAX_HEADER_LINES = 32
MAX_BODY_BYTES = 64 * 1024 * 1024
METHOD_NOT_FOUND = -32601

NotificationHandler = Callable[[str, Any], None]
RequestHandler = Callable[[str, Any], Awaitable[Any]]


class RpcError(Exception):
    """A request that failed: the server's error, a timeout, or the connection's end."""


class ConnectionClosed(RpcError):
    """The server's output ended (or was unreadable): nothing more will be answered."""


class JsonRpc:
    """One connection. `start()` begins reading; `close()` stops it. Owns its reader task."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_notification: NotificationHandler,
        on_request: RequestHandler,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._on_notification = on_notification
        self._on_request = on_request
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._task: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self.closed_reason: str | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._read_loop())

    async def request(self, method: str, params: Any, wait_s: float) -> Any:
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        rid = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            return await asyncio.wait_for(future, wait_s)
        except TimeoutError:
            with contextlib.suppress(RpcError, OSError):
                await self.notify("$/cancelRequest", {"id": rid})
            raise RpcError(f"no answer to {method} within {wait_s:g} s") from None
        finally:
            self._pending.pop(rid, None)

    async def notify(self, method: str, params: Any) -> None:
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def _send(self, message: Mapping[str, Any]) -> None:
        body = json.dumps(message, separators=(",", ":")).encode()
        try:
            self._writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await self._writer.drain()
        except (ConnectionError, RuntimeError) as exc:  # the server's stdin is gone
            self._close(f"the server stopped reading ({exc})")
            raise ConnectionClosed(self.closed_reason or "closed") from None

    async def _read_frame(self) -> bytes | None:
        length: int | None = None
        for _ in range(MAX_HEADER_LINES):
            line = await self._reader.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if length is None:
                    raise ValueError("a message without Content-Length")
                return await self._reader.readexactly(length)
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
                if not 0 <= length <= MAX_BODY_BYTES:
                    raise ValueError(f"a Content-Length of {length}")
            elif not value:
                raise ValueError(f"not an LSP header: {line[:80]!r}")
        raise ValueError("too many header lines")

    async def _read_loop(self) -> None:
        reason = "the server closed its output"
        try:
            while True:
                frame = await self._read_frame()
                if frame is None:
                    break
                message = json.loads(frame)
                if not isinstance(message, dict):
                    raise ValueError("a message that is not a JSON object")
                self._dispatch(message)
        except asyncio.IncompleteReadError:
            reason = "the server's output ended inside a message"
        except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
            reason = f"the server sent something that is not LSP: {exc}"
        except (ConnectionError, OSError) as exc:
            reason = f"reading from the server failed: {exc}"
        self._close(reason)

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                task = asyncio.create_task(
                    self._answer(message["id"], method, message.get("params"))
                )
                self._handlers.add(task)
                task.add_done_callback(self._handlers.discard)
            else:
                self._on_notification(method, message.get("params"))
            return
        rid = message.get("id")
        future = self._pending.get(rid) if isinstance(rid, int) else None
        if future is None or future.done():
            return
        error = message.get("error")
        if isinstance(error, dict):
            future.set_exception(RpcError(str(error.get("message") or error)))
        else:
            future.set_result(message.get("result"))

    async def _answer(self, rid: Any, method: str, params: Any) -> None:
        try:
            result = await self._on_request(method, params)
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "result": result}
        except LookupError:
            reply = {
                "jsonrpc": "2.0",
                "id": rid,
                "error": {"code": METHOD_NOT_FOUND, "message": f"{method} is not supported"},
            }
        with contextlib.suppress(RpcError, OSError):
            await self._send(reply)

    def _close(self, reason: str) -> None:
        if self.closed_reason is None:
            self.closed_reason = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionClosed(reason))

    async def close(self) -> None:
        self._close("the connection was closed")
        tasks = [t for t in (self._task, *self._handlers) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(OSError, RuntimeError):
            self._writer.close()
