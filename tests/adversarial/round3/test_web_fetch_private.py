"""WebFetch and private addresses by every spelling, run inside a network namespace of its own
(`unshare -n`: loopback only, so a failure cannot send a packet off the machine). The decision is
made on the address actually connected to; bounds hold against slow and huge servers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from wave_tui.net.web_pages import CrossHostRedirect, FetchError, WebFetcher

ROOT = Path(__file__).resolve().parents[3]


def fetch_in_netns(url: str) -> dict[str, object]:
    env = {**os.environ, "WAVE_TEST_NETNS": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        ["unshare", "-n", "-m", sys.executable, "-m", "tests.adversarial.round3.netns_fetch", url],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


SPELLINGS = [
    "http://127.1:{port}/",
    "http://127.0.1:{port}/",
    "http://0x7f000001:{port}/",
    "http://2130706433:{port}/",
    "http://0:{port}/",
    "http://0177.0.0.1:{port}/",
    "http://0x7f.1:{port}/",
    "http://[::ffff:127.0.0.1]:{port}/",
    "http://intranet.example:{port}/",
    "http://intranet.example.:{port}/",
    "http://2852039166:{port}/",
    "http://0xa9fea9fe:{port}/",
    "http://169.254.43518:{port}/",
    "http://metadata.example:{port}/",
    "http://167772161:{port}/",
    "http://corp.example:{port}/",
    "http://999.1.1.1:{port}/",
]


@pytest.mark.parametrize("url", SPELLINGS)
def test_a_private_address_by_any_spelling_is_not_fetched_under_an_allow_rule(url: str) -> None:
    outcome = fetch_in_netns(url)
    assert outcome["reachable"] is True
    assert outcome["returncode"] == 0, outcome["stderr"]
    assert outcome["hits"] == [] and outcome["connections"] == []
    assert outcome["secret_sent"] is False
    assert isinstance(outcome["tool_result"], str) and outcome["tool_result"]


class Slow:
    """A server on 127.0.0.1 that sends its headers or its body one byte at a time."""

    def __init__(self, mode: str) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.mode = mode
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self.drip, args=(conn,), daemon=True).start()

    def drip(self, conn: socket.socket) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"
        try:
            conn.recv(4096)
            if self.mode == "body":
                conn.sendall(head)
            data = head if self.mode == "headers" else b"x" * 100000
            for byte in data:
                if self.stop.is_set():
                    return
                conn.sendall(bytes([byte]))
                time.sleep(0.05)
        except OSError:
            pass
        finally:
            conn.close()


@pytest.fixture(params=["headers", "body"])
def slow(request: pytest.FixtureRequest) -> Iterator[Slow]:
    server = Slow(request.param)
    yield server
    server.stop.set()
    server.sock.close()


async def test_a_slow_loris_server_is_bounded_by_the_fetch_deadline(slow: Slow) -> None:
    fetcher = WebFetcher(deadline=1.0)
    try:
        with pytest.raises(FetchError, match="longer than"):
            await fetcher.fetch(f"http://127.0.0.1:{slow.port}/")
    finally:
        await fetcher.aclose()


class Bulk:
    """A loopback server answering every GET with one fixed body and content type."""

    def __init__(self, body: bytes, content_type: str | None) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                self.send_response(200)
                if content_type is not None:
                    self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("content_type", ["text/html", None])
async def test_a_huge_html_page_is_converted_only_up_to_the_bound(content_type: str | None) -> None:
    # Markup that converts to (almost) nothing: only the conversion's bound keeps the tail out.
    filler = "<span><b></b></span>\n"
    page = "<html><body>" + filler * (8_000_000 // len(filler)) + "<p>TAIL-MARKER</p></body></html>"
    server = Bulk(page.encode(), content_type)
    fetcher = WebFetcher()
    try:
        fetched = await fetcher.fetch(f"http://127.0.0.1:{server.port}/")
    finally:
        await fetcher.aclose()
        server.close()
    assert not isinstance(fetched, CrossHostRedirect)
    assert "TAIL-MARKER" not in fetched.markdown


@pytest.mark.parametrize(
    "body", [b"\x00\x01\x02binary" * 100, b"PK\x03\x04\x00\x00" + b"\x00" * 500], ids=["raw", "zip"]
)
async def test_binary_without_a_content_type_is_one_clear_error(body: bytes) -> None:
    server = Bulk(body, None)
    fetcher = WebFetcher()
    try:
        with pytest.raises(FetchError, match="not a text page"):
            await fetcher.fetch(f"http://127.0.0.1:{server.port}/")
    finally:
        await fetcher.aclose()
        server.close()
