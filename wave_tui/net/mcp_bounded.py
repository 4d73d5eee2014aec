"""Bounded reading of a streamable-HTTP MCP server's answers (MA8).

The SDK reads a JSON answer whole and an SSE event whole, however long. Here each response's
body is read through a bound: a JSON answer, or one SSE event, longer than `limit` bytes is not
passed on — in its place the request it answers gets a JSON-RPC error naming the size, so the
call ends at once instead of at its timeout, in bounded memory (as `mcp/guard.py` does for
stdio servers).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from wave_tui.net.http import httpx

OVERSIZE_CODE = -32603


def _request_id(request: httpx.Request) -> Any:
    """The JSON-RPC id of the request a response answers (None: a notification or a GET)."""
    try:
        body = json.loads(request.content or b"null")
    except (ValueError, httpx.RequestNotRead):
        return None
    return body.get("id") if isinstance(body, dict) and "method" in body else None


def _error(request_id: Any, size: int, limit: int) -> bytes:
    error = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": OVERSIZE_CODE,
            "message": f"the server's answer was {size:,}+ bytes; at most {limit:,} are read",
        },
    }
    return json.dumps(error).encode()


class BoundedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, *, sse: bool, rid: Any, limit: int) -> None:
        self._inner = inner
        self._sse = sse
        self._rid = rid
        self._limit = limit

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._events() if self._sse else self._whole()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def _whole(self) -> AsyncIterator[bytes]:
        body = bytearray()
        async for chunk in self._inner:
            body += chunk
            if len(body) > self._limit:
                size = len(body)
                body.clear()
                await self._inner.aclose()
                yield _error(self._rid, size, self._limit)
                return
        yield bytes(body)

    async def _events(self) -> AsyncIterator[bytes]:
        event = bytearray()  # the current event, up to the limit
        dropped = 0  # > 0: the current event is over the limit and skipped to its end
        async for chunk in self._inner:
            while chunk:
                end = chunk.find(b"\n")
                piece, chunk = (chunk, b"") if end < 0 else (chunk[: end + 1], chunk[end + 1 :])
                if dropped:
                    dropped += len(piece)
                elif len(event) + len(piece) > self._limit:
                    dropped = len(event) + len(piece)
                    event.clear()
                else:
                    event += piece
                if end < 0 or piece.strip(b"\r\n"):
                    continue  # an event ends at a blank line
                if dropped:
                    if self._rid is not None:
                        data = _error(self._rid, dropped, self._limit)
                        yield b"event: message\ndata: " + data + b"\n\n"
                    dropped = 0
                else:
                    yield bytes(event)
                    event.clear()
        if event and not dropped:
            yield bytes(event)


# req: MA8
def bounded_responses(limit: int) -> Any:
    """An httpx response hook putting every response's body behind the bound."""

    async def hook(response: httpx.Response) -> None:
        kind = response.headers.get("content-type", "")
        stream = response.stream
        if isinstance(stream, httpx.AsyncByteStream):
            rid = _request_id(response.request)
            sse = kind.startswith("text/event-stream")
            response.stream = BoundedStream(stream, sse=sse, rid=rid, limit=limit)

    return hook
