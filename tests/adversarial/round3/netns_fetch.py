"""Run `wave -p` with WebFetch allowed against a URL, inside a network namespace of its own.

    unshare -n -m python -m tests.adversarial.round3.netns_fetch URL_TEMPLATE

Inside the namespace (loopback only, nothing can leave the machine) this brings `lo` up, gives
it the metadata address 169.254.169.254 and a private 10.0.0.1, maps two hosts-file names to
them, listens on every address with a victim HTTP server, scripts the model to call WebFetch on
`URL_TEMPLATE.format(port=…)` and prints one JSON line: the victim's hits, the tool result the
model got, the exit code and stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave

HOSTS = (
    "127.0.0.1 localhost\n"
    "127.0.0.1 intranet.example\n"
    "169.254.169.254 metadata.example\n"
    "10.0.0.1 corp.example\n"
)


def isolate() -> None:
    if os.environ.get("WAVE_TEST_NETNS") != "1":
        raise SystemExit("run me under `unshare -n -m` with WAVE_TEST_NETNS=1")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for address in ("169.254.169.254/32", "10.0.0.1/32"):
        subprocess.run(["ip", "addr", "add", address, "dev", "lo"], check=True)
    hosts = Path(tempfile.mkdtemp()) / "hosts"
    hosts.write_text(HOSTS)
    subprocess.run(["mount", "--bind", str(hosts), "/etc/hosts"], check=True)


class Victim(BaseHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        Victim.hits.append(self.path)
        body = b"<html><body>INTERNAL-SECRET</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Listener(ThreadingHTTPServer):
    """Counts every connection (a TLS hello to this plain server is a reached victim too)."""

    connections: list[str] = []

    def process_request(self, request: object, client_address: object) -> None:
        Listener.connections.append(str(client_address))
        super().process_request(request, client_address)  # type: ignore[arg-type]


def main() -> None:
    isolate()
    victim = Listener(("0.0.0.0", 0), Victim)
    threading.Thread(target=victim.serve_forever, daemon=True).start()
    port = victim.server_address[1]
    url = sys.argv[1].format(port=port)
    # The harness itself: each private address really answers in here, so a fetch that did not
    # land was refused, not lost.
    reachable = all(
        b"INTERNAL-SECRET" in urllib.request.urlopen(f"http://{a}:{port}/probe", timeout=5).read()
        for a in ("127.0.0.1", "169.254.169.254", "10.0.0.1")
    )
    Victim.hits.clear()
    Listener.connections.clear()
    project = Path(tempfile.mkdtemp()) / "project"
    project.mkdir()
    with ModelServer() as server:
        server.enqueue(tool_call("WebFetch", {"url": url, "prompt": "what is it?"}), text("done"))
        result = run_wave(
            "-p", "fetch it", "--allowedTools", "WebFetch", cwd=project, server=server
        )
        tool_results = [
            m["content"]
            for r in server.requests
            for m in r.body.get("messages", [])
            if m.get("role") == "tool"
        ]
        sent = json.dumps([r.body for r in server.requests])
    print(
        json.dumps(
            {
                "reachable": reachable,
                "hits": Victim.hits,
                "connections": Listener.connections,
                "tool_result": tool_results[-1] if tool_results else None,
                "returncode": result.returncode,
                "stderr": result.stderr,
                "secret_sent": "INTERNAL-SECRET" in sent,
            }
        )
    )


if __name__ == "__main__":
    main()
