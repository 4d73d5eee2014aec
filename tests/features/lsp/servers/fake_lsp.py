"""A misbehaving (or very simple) language server over stdio, for the client's fault tests.

FAKE_LSP_MODE: `crash` (dies at start, a line on stderr), `hang` (never answers initialize),
`garbage` (answers with bytes that are not LSP), `silent` (initializes, then never answers),
`full` (answers implementation, call hierarchy and workspace symbols with fixed places in
FAKE_LSP_FILE). FAKE_LSP_PID_FILE: its pid is appended there. Stdlib only.
"""

from __future__ import annotations

import json
import os
import sys
import time

MODE = os.environ.get("FAKE_LSP_MODE", "full")
FILE = os.environ.get("FAKE_LSP_FILE", "/nonexistent.py")


def read() -> dict | None:
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None
    return json.loads(sys.stdin.buffer.read(length))


def send(message: dict) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def pos(line: int, char: int) -> dict:
    return {"line": line, "character": char}


def rng(line: int, char: int) -> dict:
    return {"start": pos(line, char), "end": pos(line, char + 3)}


URI = "file://" + FILE
ITEM = {"name": "greet", "kind": 12, "uri": URI, "range": rng(3, 4), "selectionRange": rng(3, 4)}
CALLER = {"name": "main", "kind": 12, "uri": URI, "range": rng(0, 0), "selectionRange": rng(0, 0)}
ANSWERS = {
    "textDocument/implementation": [{"uri": URI, "range": rng(3, 4)}],
    "textDocument/prepareCallHierarchy": [ITEM],
    "callHierarchy/incomingCalls": [{"from": CALLER, "fromRanges": [rng(1, 4)]}],
    "callHierarchy/outgoingCalls": [{"to": CALLER, "fromRanges": [rng(4, 4)]}],
    "workspace/symbol": [
        {"name": "greet", "kind": 12, "location": {"uri": URI, "range": rng(3, 4)}}
    ],
}
CAPABILITIES = {
    "textDocumentSync": 1,
    "definitionProvider": True,
    "implementationProvider": True,
    "callHierarchyProvider": True,
    "workspaceSymbolProvider": True,
    "hoverProvider": True,
}


def main() -> None:
    pid_file = os.environ.get("FAKE_LSP_PID_FILE")
    if pid_file:
        with open(pid_file, "a") as f:
            f.write(f"{os.getpid()}\n")
    if MODE == "crash":
        sys.stderr.write("fake_lsp: boom\n")
        sys.exit(3)
    while (message := read()) is not None:
        method = message.get("method")
        if "id" not in message:
            if method == "exit":
                return
            continue
        if MODE == "hang":
            continue
        if MODE == "garbage":
            sys.stdout.buffer.write(b"this is not a language server\r\n\r\n")
            sys.stdout.buffer.flush()
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": CAPABILITIES}})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif MODE == "silent":
            continue
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "result": ANSWERS.get(method)})
    time.sleep(0)


if __name__ == "__main__":
    main()
