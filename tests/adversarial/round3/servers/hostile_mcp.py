"""A raw JSON-RPC MCP server over stdio that lists whatever tools it is told to and can answer
a call with a result of any size (stdlib only: the hostile parts are byte-exact).

    python hostile_mcp.py TOOLS_JSON_FILE

TOOLS_JSON_FILE holds `{"tools": [{"name", "description"?, "inputSchema"?}], "result_bytes": N}`;
every `tools/call` answers with one text block of N bytes (default: the tool's name), and writes
the name to `HOSTILE_CALLS` (a file, when set) first.
"""

from __future__ import annotations

import json
import os
import sys


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def send_huge_text(request_id: object, size: int) -> None:
    head = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "result": {"content": [{"type": "text", "text": "PLACEHOLDER"}]},
        }
    )
    before, after = head.split("PLACEHOLDER")
    out = sys.stdout.buffer
    out.write(before.encode())
    chunk = b"x" * (1 << 20)
    left = size
    while left > 0:
        out.write(chunk[: min(left, len(chunk))])
        left -= len(chunk)
    out.write(after.encode() + b"\n")
    out.flush()


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as fh:
        spec = json.load(fh)
    tools = spec["tools"]
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {
                        "protocolVersion": message["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "hostile", "version": "1"},
                    },
                }
            )
        elif method == "tools/list":
            listed = [{"description": "", "inputSchema": {"type": "object"}, **t} for t in tools]
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": listed}})
        elif method == "tools/call":
            name = message["params"]["name"]
            calls = os.environ.get("HOSTILE_CALLS")
            if calls:
                with open(calls, "a", encoding="utf-8") as fh:
                    fh.write(name + "\n")
            size = spec.get("result_bytes")
            if size:
                send_huge_text(request_id, int(size))
            else:
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": request_id,
                        "result": {"content": [{"type": "text", "text": f"called {name}"}]},
                    }
                )
        else:
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})


if __name__ == "__main__":
    main()
