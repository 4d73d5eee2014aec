"""WebSearch through `wave -p` against a local SearXNG-compatible server (WS1–WS3): declared
only when configured, results as title / URL / snippet, domain filters, Brave and Tavily by
key, a backend down or answering HTML, and the permission it asks like WebFetch."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.search_server import SearchServer, serving
from tests.wave_cli import run_wave
from tests.wire_view import tool_names

ALLOW = ("--allowedTools", "WebSearch")


@pytest.fixture
def search_server() -> Iterator[SearchServer]:
    with serving() as server:
        yield server


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def configure(home: Path, web_search: dict[str, str], **more: object) -> None:
    (home / ".wave").mkdir(exist_ok=True)
    (home / ".wave" / "settings.json").write_text(json.dumps({"webSearch": web_search, **more}))


def search_result(server: ModelServer) -> str:
    tool = [m for m in server.requests[-1].body["messages"] if m["role"] == "tool"][-1]
    return str(tool["content"])


def search(server: ModelServer, **args: object) -> None:
    server.enqueue(tool_call("WebSearch", {"query": "wave release", **args}), text("done"))


@pytest.mark.req("WS1")
def test_websearch_is_declared_only_when_a_backend_is_set(
    model_server: ModelServer, project: Path, isolated_home: Path, search_server: SearchServer
) -> None:
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    assert "WebSearch" not in tool_names(model_server.requests[0].body)
    configure(isolated_home, {"provider": "searxng", "url": search_server.url})
    model_server.reset()
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    assert "WebSearch" in tool_names(model_server.requests[0].body)
    assert search_server.requests == []  # declaring it searches nothing


@pytest.mark.req("WS1")
@pytest.mark.req("WS2")
def test_searxng_results_come_as_title_url_snippet_with_blocked_domains_left_out(
    model_server: ModelServer, project: Path, isolated_home: Path, search_server: SearchServer
) -> None:
    configure(isolated_home, {"provider": "searxng", "url": search_server.url})
    search(model_server, blocked_domains=["spam.example"])
    proc = run_wave("-p", "search", *ALLOW, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (request,) = search_server.requests
    assert request.path == "/search"
    assert request.query == {"q": ["wave release"], "format": ["json"]}
    assert search_result(model_server) == (
        'Web search results for "wave release":\n\n'
        "1. Wave 7 release notes\n   https://docs.wave.example/release/7\n"
        "   Version 7 adds tasks.\n\n"
        "2. Wave source\n   https://github.com/wave/wave\n   The source code of wave."
    )


@pytest.mark.req("WS2")
def test_allowed_domains_keep_only_those_domains_and_their_subdomains(
    model_server: ModelServer, project: Path, isolated_home: Path, search_server: SearchServer
) -> None:
    configure(isolated_home, {"provider": "searxng", "url": search_server.url})
    search(model_server, allowed_domains=["wave.example"])
    proc = run_wave("-p", "search", *ALLOW, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    result = search_result(model_server)
    assert "https://docs.wave.example/release/7" in result
    assert "github.com" not in result and "spam.example" not in result


@pytest.mark.req("WS1")
def test_brave_and_tavily_send_their_key(
    model_server: ModelServer, project: Path, isolated_home: Path, search_server: SearchServer
) -> None:
    brave = {"provider": "brave", "apiKey": "BRAVE-KEY", "url": f"{search_server.url}/brave"}
    configure(isolated_home, brave)
    search(model_server)
    assert run_wave("-p", "go", *ALLOW, cwd=project, server=model_server).returncode == 0
    assert "1. Wave 7 release notes" in search_result(model_server)
    tavily = {"provider": "tavily", "apiKey": "TAVILY-KEY", "url": f"{search_server.url}/tavily"}
    configure(isolated_home, tavily)
    search(model_server, blocked_domains=["spam.example"])
    assert run_wave("-p", "go", *ALLOW, cwd=project, server=model_server).returncode == 0
    assert "2. Wave source" in search_result(model_server)
    first, second = search_server.requests
    assert first.method == "GET" and first.query["q"] == ["wave release"]
    assert first.headers["X-Subscription-Token"] == "BRAVE-KEY"
    assert second.method == "POST" and second.headers["Authorization"] == "Bearer TAVILY-KEY"
    assert second.body == {
        "query": "wave release", "max_results": 10, "exclude_domains": ["spam.example"],
    }  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.req("WS1")
def test_a_backend_that_is_down_or_answers_html_is_one_tool_error(
    model_server: ModelServer, project: Path, isolated_home: Path, search_server: SearchServer
) -> None:
    configure(isolated_home, {"provider": "searxng", "url": f"http://127.0.0.1:{free_port()}"})
    search(model_server)
    proc = run_wave("-p", "go", *ALLOW, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    down = search_result(model_server)
    assert down.startswith("WebSearch failed: the searxng backend at http://127.0.0.1:")
    assert "cannot be reached" in down and "\n" not in down
    search_server.html = True
    configure(isolated_home, {"provider": "searxng", "url": search_server.url})
    search(model_server)
    proc = run_wave("-p", "go", *ALLOW, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    html = search_result(model_server)
    assert "answered text/html, not JSON" in html and "\n" not in html


@pytest.mark.req("WS3")
def test_websearch_asks_like_webfetch_and_rules_name_it(
    model_server: ModelServer, project: Path, isolated_home: Path, search_server: SearchServer
) -> None:
    configure(isolated_home, {"provider": "searxng", "url": search_server.url})
    search(model_server)
    proc = run_wave("-p", "go", cwd=project, server=model_server)  # no rule: nobody to ask
    assert proc.returncode == 0, proc.stderr
    assert search_server.requests == []
    assert "Web search results" not in search_result(model_server)
    configure(
        isolated_home,
        {"provider": "searxng", "url": search_server.url},
        permissions={"deny": ["WebSearch"]},
    )
    search(model_server)
    proc = run_wave("-p", "go", "--permission-mode", "bypassPermissions", cwd=project, server=model_server)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert search_server.requests == []
    configure(
        isolated_home,
        {"provider": "searxng", "url": search_server.url},
        permissions={"allow": ["WebSearch"]},
    )
    search(model_server)
    assert run_wave("-p", "go", cwd=project, server=model_server).returncode == 0
    assert len(search_server.requests) == 1
