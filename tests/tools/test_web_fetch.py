"""WebFetch against a real HTTP server on 127.0.0.1 (loopback keeps plain http) (WF1–WF3)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wave_tui.net.addresses import is_private_name as is_private_host
from wave_tui.net.web_pages import (
    MAX_CONTENT_CHARS,
    FetchError,
    WebFetcher,
    normalize_url,
)
from wave_tui.tools.base import ToolContext
from wave_tui.tools.web_fetch import WebFetchTool, answer_request

PAGE = (
    "<html><head><title>Docs</title><script>var secret = 1;</script></head>"
    "<body><h1>Install</h1><p>Run <code>pip install wave</code> then <b>enjoy</b>.</p></body></html>"
)


class _Site(ThreadingHTTPServer):
    hits: Counter[str]


class _Handler(BaseHTTPRequestHandler):
    server: _Site

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:
        self.server.hits[self.path] += 1
        port = self.server.server_address[1]
        routes: dict[str, tuple[int, str, bytes, dict[str, str]]] = {
            "/page": (200, "text/html; charset=utf-8", PAGE.encode(), {}),
            "/same": (302, "text/plain", b"", {"Location": "/page"}),
            "/other": (301, "text/plain", b"", {"Location": f"http://localhost:{port}/page"}),
            "/big": (200, "text/plain", b"x" * (MAX_CONTENT_CHARS + 5000), {}),
            "/image": (200, "image/png", b"\x89PNG", {}),
        }
        status, ctype, body, headers = routes.get(self.path, (404, "text/plain", b"no", {}))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def site() -> Iterator[_Site]:
    server = _Site(("127.0.0.1", 0), _Handler)
    server.hits = Counter()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _base(site: _Site) -> str:
    return f"http://127.0.0.1:{site.server_address[1]}"


class _FastModel:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, prompt: str, markdown: str) -> str:
        self.calls.append((prompt, markdown))
        return f"answer about {len(markdown)} chars"


@pytest.mark.req("WF1")
async def test_wf1_html_becomes_markdown_and_the_fast_model_answers(
    site: _Site, ctx: ToolContext
) -> None:
    model = _FastModel()
    fetcher = WebFetcher()
    tool = WebFetchTool(fetcher, model)
    result = await tool.run({"url": f"{_base(site)}/page", "prompt": "How to install?"}, ctx)
    assert not result.is_error, result.content
    ((prompt, markdown),) = model.calls
    assert prompt == "How to install?"
    assert "# Install" in markdown and "**enjoy**" in markdown and "`pip install wave`" in markdown
    assert "secret" not in markdown
    assert result.content == f"answer about {len(markdown)} chars"
    assert "How to install?" in answer_request(prompt, markdown)
    await fetcher.aclose()


@pytest.mark.req("WF2")
async def test_wf2_cached_for_repeat_fetches_and_capped_at_100k(site: _Site) -> None:
    fetcher = WebFetcher()
    first = await fetcher.fetch(f"{_base(site)}/page")
    second = await fetcher.fetch(f"{_base(site)}/page")
    assert first == second and site.hits["/page"] == 1
    big = await fetcher.fetch(f"{_base(site)}/big")
    assert len(big.markdown) == MAX_CONTENT_CHARS and big.truncated  # type: ignore[union-attr]
    await fetcher.aclose()


@pytest.mark.req("WF3")
async def test_wf3_same_host_redirect_followed_cross_host_reported(
    site: _Site, ctx: ToolContext
) -> None:
    fetcher = WebFetcher()
    model = _FastModel()
    tool = WebFetchTool(fetcher, model)
    same = await tool.run({"url": f"{_base(site)}/same", "prompt": "p"}, ctx)
    assert not same.is_error and site.hits["/page"] == 1
    other = await tool.run({"url": f"{_base(site)}/other", "prompt": "p"}, ctx)
    assert not other.is_error
    assert f"http://localhost:{site.server_address[1]}/page" in other.content
    assert "different host" in other.content
    assert site.hits["/page"] == 1  # not followed
    await fetcher.aclose()


@pytest.mark.req("WF1")
async def test_wf1_errors_are_one_line_tool_errors(site: _Site, ctx: ToolContext) -> None:
    fetcher = WebFetcher()
    tool = WebFetchTool(fetcher, _FastModel())
    missing = await tool.run({"url": f"{_base(site)}/nope", "prompt": "p"}, ctx)
    assert missing.is_error and "HTTP 404" in missing.content
    image = await tool.run({"url": f"{_base(site)}/image", "prompt": "p"}, ctx)
    assert image.is_error and "not a text page" in image.content
    # Loopback: even a broken scheme check could not reach off the machine.
    bad = await tool.run({"url": "ftp://127.0.0.1:9/x", "prompt": "p"}, ctx)
    assert bad.is_error and "Not an http(s) URL" in bad.content
    await fetcher.aclose()


@pytest.mark.req("WF1")
def test_wf1_http_upgraded_to_https_except_loopback() -> None:
    assert normalize_url("http://example.com/a#frag") == "https://example.com/a"
    assert normalize_url("http://127.0.0.1:8080/x") == "http://127.0.0.1:8080/x"
    assert normalize_url("http://localhost/x") == "http://localhost/x"
    with pytest.raises(FetchError):
        normalize_url("http://user:pw@example.com/")


@pytest.mark.req("WF3")
def test_wf3_private_addresses_are_flagged_for_approval() -> None:
    assert is_private_host("127.0.0.1") and is_private_host("10.1.2.3")
    assert is_private_host("169.254.169.254") and is_private_host("[::1]")
    assert is_private_host("printer.local") and is_private_host("localhost")
    assert not is_private_host("example.com") and not is_private_host("93.184.216.34")
