"""A FastMCP 2.x server (the `fastmcp` package, not the SDK's `mcp.server.fastmcp`), run by the
interpreter of its own venv (`tests/mcp/pypi_servers.py`), over stdio or streamable HTTP.

    python fastmcp2_server.py          stdio
    python fastmcp2_server.py --http   streamable HTTP on 127.0.0.1, a free port; prints
                                       `PORT <n>` once listening

Its tools use what a server may ask of its client: progress (`slow`, which waits for the file
named by `gate` when given), elicitation (`ask_name`), sampling (`summarize`), logging
(`chatty`), an image result (`picture`), and task execution (`task_only` requires it,
`task_maybe` allows it). It publishes the resource template `notes://{name}`.
"""

from __future__ import annotations

import socket
import struct
import sys
import zlib
from pathlib import Path

import anyio
from fastmcp import Context, FastMCP
from fastmcp.server.tasks import TaskConfig
from fastmcp.utilities.types import Image

server = FastMCP("fm2")


@server.tool()
async def slow(steps: int, ctx: Context, gate: str = "") -> str:
    """Count to `steps`, reporting progress; then wait for the file `gate` (if given)."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"reading part {step}")
    while gate and not Path(gate).exists():
        await anyio.sleep(0.02)
    return f"slow done after {steps}"


@server.tool()
async def ask_name(ctx: Context) -> str:
    """Ask the user for a name (elicitation)."""
    answer = await ctx.elicit("What is your name?", response_type=str)
    if answer.action == "accept":
        return f"hello {answer.data}"
    return f"elicitation {answer.action}"


@server.tool()
async def summarize(words: str, ctx: Context) -> str:
    """Have the client's model summarize `words` (sampling)."""
    try:
        reply = await ctx.sample(f"Summarize: {words}", max_tokens=40)
    except Exception as exc:  # the client refused: its reason is the answer
        return f"sampling failed: {exc}"
    return f"summary: {getattr(reply, 'text', reply)}"


@server.tool()
async def chatty(ctx: Context) -> str:
    """Log a line at info level, then answer."""
    await ctx.info("chatty was called")
    return "logged"


@server.tool()
def picture() -> Image:
    """A 2x2 red PNG."""
    return Image(data=_png(2, 2), format="png")


@server.tool(task=TaskConfig(mode="required"))
async def task_only() -> str:
    """Runs only as a task."""
    return "ran as a task"


@server.tool(task=TaskConfig(mode="optional"))
async def task_maybe() -> str:
    """Runs as a task or as a plain call."""
    return "ran plainly"


@server.resource("notes://{name}")
def note(name: str) -> str:
    """A note by name."""
    return f"the note {name}"


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _serve_http() -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue from now on, before uvicorn takes over
    port = sock.getsockname()[1]
    config = uvicorn.Config(server.http_app(path="/mcp"), log_level="warning")
    print(f"PORT {port}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    if "--http" in sys.argv:
        _serve_http()
    else:
        server.run(show_banner=False)
