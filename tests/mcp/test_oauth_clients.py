"""MCP OAuth beyond dynamic registration (MA13, the conformance suite's auth scenarios): a
pre-registered client from the entry's `oauth`, a client ID metadata document URL, a 2025-03-26
server without protected-resource metadata, and a scope step-up nobody was there to grant. The
servers are the real authorization and MCP servers of `servers/oauth_server.py` on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.mcp.conftest import Notes, OAuthDemo, play_browser
from wave_tui.config.paths import WavePaths
from wave_tui.mcp.config import HttpServer, OAuthClient, load_servers
from wave_tui.mcp.http_auth import Consent
from wave_tui.mcp.manager import McpManager

CIMD = "https://wave.example/oauth/client.json"
MACHINE = "client_credentials"


@pytest.fixture
def auth_file(project: Path) -> Path:
    return WavePaths.for_workdir(project).mcp_auth_file


class Browser:
    def __init__(self) -> None:
        self.urls: list[str] = []

    async def __call__(self, url: str) -> None:
        self.urls.append(url)
        await asyncio.to_thread(play_browser, url)


def query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


async def authorize(config: HttpServer, project: Path, auth_file: Path) -> Browser:
    browser = Browser()
    manager = McpManager([config], workdir=project, notify=print, auth_file=auth_file)
    try:
        status = await manager.authorize(config.name, Consent(browser))
    finally:
        await manager.aclose()
    assert status is not None and status.state == "ready", status
    return browser


@pytest.mark.req("MA13")
def test_ma13_an_entry_names_its_oauth_client(tmp_path: Path) -> None:
    entries = {
        "pre": {"url": "https://x.test/mcp", "oauth": {"clientId": "c", "clientSecret": "${S}"}},
        "doc": {"type": "sse", "url": "https://x.test/sse", "oauth": {"clientMetadataUrl": CIMD}},
        "plain": {"url": "https://x.test/mcp"},
        "bad1": {"url": "https://x.test/mcp", "oauth": {"clientSecret": "s"}},
        "bad2": {"url": "https://x.test/mcp", "oauth": {"clientMetadataUrl": "http://x.test/c"}},
        "bad3": {"url": "https://x.test/mcp", "oauth": "c"},
        "bad4": {"url": "https://x.test/mcp", "oauth": {"clientId": "c", "grantType": "password"}},
        "bad5": {"url": "https://x.test/mcp", "oauth": {"clientId": "c", "grantType": MACHINE}},
        "machine": {
            "url": "https://x.test/mcp",
            "oauth": {"clientId": "m", "clientSecret": "s", "grantType": MACHINE},
        },
    }
    config = load_servers([(tmp_path / "s.json", "user", {"mcpServers": entries})], {"S": "s3"})
    by_name = {s.name: s for s in config.servers}
    assert by_name["pre"].oauth == OAuthClient("c", "s3", None)  # type: ignore[union-attr]
    assert by_name["doc"].oauth == OAuthClient(None, None, CIMD)  # type: ignore[union-attr]
    assert by_name["plain"].oauth is None  # type: ignore[union-attr]
    assert by_name["machine"].oauth == OAuthClient("m", "s", None, MACHINE)  # type: ignore[union-attr]
    assert sorted(by_name) == ["doc", "machine", "plain", "pre"]
    assert [p.split(": ", 1)[1] for p in config.problems] == [
        "MCP server 'bad1' skipped: oauth.clientSecret needs oauth.clientId",
        "MCP server 'bad2' skipped: oauth.clientMetadataUrl must be an https:// URL with a path, "
        "got 'http://x.test/c'",
        "MCP server 'bad3' skipped: oauth must be an object",
        "MCP server 'bad4' skipped: oauth.grantType must be authorization_code or "
        "client_credentials, got 'password'",
        "MCP server 'bad5' skipped: oauth.grantType client_credentials needs oauth.clientSecret",
    ]


@pytest.mark.req("MA13")
async def test_ma13_a_pre_registered_client_authenticates_with_its_secret(
    oauth_demo: OAuthDemo, project: Path, auth_file: Path
) -> None:
    oauth_demo.control(preregistered={"id": "pre-client", "secret": "pre-secret"})
    config = replace(oauth_demo.config(), oauth=OAuthClient("pre-client", "pre-secret"))
    browser = await authorize(config, project, auth_file)
    (url,) = browser.urls
    assert query(url)["client_id"] == "pre-client"
    assert query(url)["code_challenge_method"] == "S256"
    stats = oauth_demo.stats()
    assert (stats["register"], stats["token"]) == (0, 1)
    # The secret lives in the settings only, never in the token store.
    entry = json.loads(auth_file.read_text())["servers"]["secure"]
    assert "pre-secret" not in json.dumps(entry) and "client" not in entry


@pytest.mark.req("MA13")
async def test_ma13_a_client_id_metadata_document_replaces_registration(
    oauth_demo: OAuthDemo, project: Path, auth_file: Path
) -> None:
    oauth_demo.control(cimd=True)
    config = replace(oauth_demo.config(), oauth=OAuthClient(client_metadata_url=CIMD))
    browser = await authorize(config, project, auth_file)
    (url,) = browser.urls
    assert query(url)["client_id"] == CIMD
    assert oauth_demo.stats()["register"] == 0


@pytest.mark.req("MA13")
async def test_ma13_a_2025_03_26_server_with_its_metadata_at_the_root(
    oauth_demo: OAuthDemo, project: Path, auth_file: Path
) -> None:
    # No protected-resource metadata; the root metadata names an issuer under a path (/as).
    oauth_demo.control(legacy=True)
    browser = await authorize(oauth_demo.config(), project, auth_file)
    (url,) = browser.urls
    assert url.startswith(f"{oauth_demo.base}/as/authorize?")
    assert query(url)["code_challenge_method"] == "S256"


@pytest.mark.req("MA13")
async def test_ma13_a_step_up_is_asked_for_at_the_next_authorization(
    oauth_demo: OAuthDemo, project: Path, notes: Notes, auth_file: Path
) -> None:
    await authorize(oauth_demo.config(), project, auth_file)
    # The server now wants more for the same work, and nobody is there to consent: the server
    # is "needs authorization", and the scope it asked for is kept.
    oauth_demo.control(step_up="write")
    headless = McpManager([oauth_demo.config()], workdir=project, notify=notes, auth_file=auth_file)
    headless.start()
    await headless.wait_started()
    try:
        (status,) = headless.statuses()
        assert status.state == "needs-auth"
        assert status.last_error == (
            "needs authorization (the server asks for more access: basic write): /mcp auth secure"
        )
    finally:
        await headless.aclose()
    assert json.loads(auth_file.read_text())["servers"]["secure"]["wanted_scope"] == "basic write"
    # The next authorization asks for it up front (the 401 itself asks only for `basic`).
    again = await authorize(oauth_demo.config(), project, auth_file)
    assert [query(u)["scope"] for u in again.urls] == ["basic write"]
    assert "wanted_scope" not in json.loads(auth_file.read_text())["servers"]["secure"]


@pytest.mark.req("MA13")
async def test_ma13_a_client_credentials_client_gets_its_token_without_asking(
    oauth_demo: OAuthDemo, project: Path, notes: Notes, auth_file: Path
) -> None:
    oauth_demo.control(preregistered={"id": "robot", "secret": "robot-secret"})
    config = replace(oauth_demo.config(), oauth=OAuthClient("robot", "robot-secret", None, MACHINE))
    manager = McpManager([config], workdir=project, notify=notes, auth_file=auth_file)
    manager.start()
    await manager.wait_started()
    try:
        assert manager.statuses()[0].state == "ready"
        assert (await manager.call("secure", "whoami", {})).content == "you hold a valid token"
    finally:
        await manager.aclose()
    stats = oauth_demo.stats()
    assert (stats["authorize"], stats["register"], stats["token"]) == (0, 0, 1)
    assert notes.lines == []
