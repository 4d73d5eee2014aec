"""A fixed-answer model server on 127.0.0.1 that speaks both wire formats the peers use: chat
completions (wave, the floor) and the Responses API (Codex, which no longer speaks chat). Both
stream "OK"; neither looks at the request beyond its length, so each client pays only for its own
request.

Usage: python bench/peer_server.py PORT   (0 for any; prints `READY http://127.0.0.1:PORT/v1`)
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "OK", "annotations": []}],
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = json.dumps({"object": "list", "data": [{"id": "test-model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.endswith("/chat/completions"):
            self._stream(self._chat())
        elif self.path.endswith("/responses"):
            self._stream(self._responses())
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def _chat(self) -> list[str]:
        base = {"id": "c1", "object": "chat.completion.chunk", "model": "test-model"}
        delta = {"index": 0, "delta": {"role": "assistant", "content": "OK"}}
        end = {"index": 0, "delta": {}, "finish_reason": "stop"}
        return [
            _data({**base, "choices": [delta]}),
            _data({**base, "choices": [end], "usage": USAGE}),
            "data: [DONE]\n\n",
        ]

    def _responses(self) -> list[str]:
        started = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
        usage = {
            "input_tokens": 10,
            "output_tokens": 1,
            "total_tokens": 11,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        done = {**started, "status": "completed", "output": [MESSAGE], "usage": usage}
        opened = {**MESSAGE, "status": "in_progress", "content": []}
        return [
            _event("response.created", {"response": started}),
            _event("response.output_item.added", {"output_index": 0, "item": opened}),
            _event(
                "response.output_text.delta",
                {"item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "OK"},
            ),
            _event("response.output_item.done", {"output_index": 0, "item": MESSAGE}),
            _event("response.completed", {"response": done}),
        ]

    def _stream(self, chunks: list[str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write("".join(chunks).encode())
        self.wfile.flush()
        self.close_connection = True


def _data(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload)}\n\n"


def _event(name: str, payload: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n\n"


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)  # 0: any free port
    print(f"READY http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()
