"""The daemon's side of an attached client (`{"op": "attach", "id": ID}`): the connection
becomes a stream. The first line is the answer (the conversation so far, the reply streaming
now, the state); then one line per event of the session and per change of its state, until the
client goes away (the session goes on: detaching is not destroying) or the session is destroyed.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from wave_tui.session.daemon.protocol import encode, failure

if TYPE_CHECKING:
    from wave_tui.session.daemon.server import DaemonServer


# req: DM2
async def serve_attached(
    daemon: DaemonServer,
    request: dict[str, Any],
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> None:
    hosted = daemon.sessions.get(str(request.get("id", "")))
    if hosted is None or hosted.session is None:
        problem = f"no daemon session {request.get('id')!r} (wave daemon list)"
        writer.write(encode(failure(problem if hosted is None else hosted.error or problem)))
        await writer.drain()
        return
    lines: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    hello, unsubscribe = hosted.subscribe(lines.put_nowait)
    # A client sends nothing more on this connection: anything read is its end.
    gone = asyncio.ensure_future(reader.read(1))
    try:
        writer.write(encode({"ok": True, **hello}))
        await writer.drain()
        while True:
            line = asyncio.ensure_future(lines.get())
            await asyncio.wait({line, gone}, return_when=asyncio.FIRST_COMPLETED)
            if not line.done():
                line.cancel()
                break
            writer.write(encode(line.result()))
            await writer.drain()
            if line.result().get("destroyed"):  # the session's last news
                break
    finally:
        unsubscribe()
        if not gone.done():
            gone.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await gone
