"""A real MCP server for the tests (the SDK's FastMCP), over stdio or streamable HTTP.

    python demo_server.py                 stdio
    python demo_server.py --http          streamable HTTP on 127.0.0.1, a free port; prints
                                          `PORT <n>` once listening
    python demo_server.py --sse           the older HTTP+SSE transport (`/sse`), likewise
    python demo_server.py --http --stateless   streamable HTTP without sessions (no session id,
                                          no GET stream), as serverless deployments run it
    python demo_server.py --http --json   answers as JSON bodies instead of SSE streams
It publishes resources (`demo://readme`, `demo://big` of `DEMO_BIG_BYTES`, `demo://logo` binary)
and prompts (`review(file, focus="bugs")`, `greet()`).
`DEMO_PID_FILE` (if set) receives the server's pid and its parent's, so tests can check they
are gone; with `DEMO_STUBBORN` set the server does not exit when its stdin ends.
"""

from __future__ import annotations

import os
import socket
import sys

import anyio
from mcp.server.fastmcp import Context, FastMCP, Image
from mcp.types import CallToolResult, ImageContent

server = FastMCP("demo", instructions="Demo server: call echo to test the connection.")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@server.tool()
def env(name: str) -> str:
    """The value of an environment variable of the server."""
    return os.environ.get(name, "<unset>")


@server.tool()
def fail(message: str) -> str:
    """Always fails with the message."""
    raise ValueError(message)


@server.tool()
def weather(city: str) -> CallToolResult:
    """Structured content only, no text block."""
    return CallToolResult(content=[], structuredContent={"city": city, "celsius": 21})


@server.tool()
def picture() -> Image:
    """An image result."""
    return Image(data=b"\x89PNG\r\n\x1a\n" + b"0" * 100, format="png")


@server.tool()
def photo() -> CallToolResult:
    """A real 64×48 PNG, with its base64 repeated in structured content (as some servers do)."""
    import base64
    import io

    from PIL import Image as Pillow

    buffer = io.BytesIO()
    Pillow.new("RGB", (64, 48), (30, 160, 90)).save(buffer, format="PNG")
    data = base64.b64encode(buffer.getvalue()).decode()
    image = ImageContent(type="image", data=data, mimeType="image/png")
    return CallToolResult(content=[image], structuredContent={"image": data})


@server.tool()
def big(chars: int) -> str:
    """A long text result."""
    return "x" * chars


@server.tool()
async def hang() -> str:
    """Never answers."""
    await anyio.sleep(3600)
    return "never"


@server.tool()
def crash() -> str:
    """The server process dies."""
    sys.stderr.write("demo server: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
async def grow(ctx: Context) -> str:  # type: ignore[type-arg]
    """Adds the tool `added` and tells the client its tool list changed."""

    def added() -> str:
        """A tool that appeared later."""
        return "added works"

    server.add_tool(added, name="added")
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.resource("demo://readme", name="readme", description="The demo readme")
def readme() -> str:
    return "Demo readme: the answer is 42."


@server.resource("demo://big", name="big", description="A large text")
def big_resource() -> str:
    return "y" * int(os.environ.get("DEMO_BIG_BYTES", "100000"))


@server.resource("demo://logo", name="logo", mime_type="image/png")
def logo() -> bytes:
    return b"\x89PNG\r\n\x1a\n" + b"1" * 64


@server.prompt(description="Review a file for one kind of problem")
def review(file: str, focus: str = "bugs") -> str:
    return f"Please review {file}, looking for {focus}."


@server.prompt()
def greet() -> str:
    """Say hello."""
    return "Say hello to the user."


def _serve_http(sse: bool = False) -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue from now on, before uvicorn takes over
    port = sock.getsockname()[1]
    app = server.sse_app() if sse else server.streamable_http_app()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    print(f"PORT {port}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    pid_file = os.environ.get("DEMO_PID_FILE")
    if pid_file:
        with open(pid_file, "a") as f:
            f.write(f"{os.getpid()} {os.getppid()}\n")  # the server and its guard
    if "--stateless" in sys.argv:
        server.settings.stateless_http = True
    if "--json" in sys.argv:  # each answer as one JSON body, not an SSE stream
        server.settings.json_response = True
    if "--http" in sys.argv or "--sse" in sys.argv:
        _serve_http(sse="--sse" in sys.argv)
    else:
        server.run("stdio")
        if os.environ.get("DEMO_STUBBORN"):  # a server that does not exit when its input ends
            import time

            time.sleep(600)
