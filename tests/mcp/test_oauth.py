"""OAuth 2.1 against a real authorization server and an MCP server that demands its token, both
on 127.0.0.1 (`servers/oauth_server.py`); the browser step is the test fetching the URL."""

from __future__ import annotations

import asyncio
import json
import stat
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.mcp.conftest import Notes, OAuthDemo, play_browser
from wave_tui.config.paths import WavePaths
from wave_tui.mcp.http_auth import Consent
from wave_tui.mcp.manager import McpManager


@pytest.fixture
def auth_file(project: Path) -> Path:
    return WavePaths.for_workdir(project).mcp_auth_file


@pytest.fixture
async def manager(
    oauth_demo: OAuthDemo, project: Path, notes: Notes, auth_file: Path
) -> AsyncIterator[McpManager]:
    m = McpManager(
        [oauth_demo.config()], workdir=project, notify=notes, auth_file=auth_file, call_timeout=10
    )
    m.start()
    await m.wait_started()
    yield m
    await m.aclose()


class Browser:
    """The `Consent.show` of a test: records the URL and plays the browser on it."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.pages: list[str] = []

    async def __call__(self, url: str) -> None:
        self.urls.append(url)
        self.pages.append(await asyncio.to_thread(play_browser, url))


def stored(auth_file: Path) -> dict[str, object]:
    servers: dict[str, object] = json.loads(auth_file.read_text())["servers"]
    return servers


@pytest.mark.req("MO2")
async def test_mo2_a_server_needing_auth_is_shown_as_such_not_a_crash(
    manager: McpManager, notes: Notes, auth_file: Path
) -> None:
    (status,) = manager.statuses()
    assert status.state == "needs-auth"
    assert status.last_error == "needs authorization: /mcp auth secure"
    assert notes.lines == ["MCP server 'secure' needs authorization: run wave mcp auth secure"]
    assert manager.tools() == []
    assert not auth_file.exists()  # nothing registered nor stored without the user


@pytest.mark.req("MO1")
async def test_mo1_discovery_registration_pkce_and_tokens_0600(
    manager: McpManager, oauth_demo: OAuthDemo, auth_file: Path
) -> None:
    browser = Browser()
    status = await manager.authorize("secure", Consent(browser))
    assert status is not None and status.state == "ready", status
    assert status.tools == ("mcp__secure__whoami",)
    (url,) = browser.urls
    assert url.startswith(f"{oauth_demo.base}/as/authorize?")
    assert "code_challenge_method=S256" in url
    assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in url  # the loopback redirect
    assert "wave is authorized" in browser.pages[0]
    assert stat.S_IMODE(auth_file.stat().st_mode) == 0o600
    entry = stored(auth_file)["secure"]
    assert isinstance(entry, dict) and entry["url"] == oauth_demo.url
    assert entry["tokens"]["access_token"].startswith("at-")
    assert entry["client"]["client_id"].startswith("client-")  # dynamic registration
    result = await manager.call("secure", "whoami", {})
    assert result.content == "you hold a valid token"
    counts = oauth_demo.stats()
    assert (counts["register"], counts["authorize"], counts["token"]) == (1, 1, 1)


def expire_soon(auth_file: Path, seconds_left: float) -> None:
    """The stored access token has `seconds_left` of its hour (as if saved long ago)."""
    data = json.loads(auth_file.read_text())
    data["servers"]["secure"]["expires_at"] = time.time() + seconds_left
    auth_file.write_text(json.dumps(data))


async def authorized(oauth_demo: OAuthDemo, project: Path, auth_file: Path) -> None:
    first = McpManager([oauth_demo.config()], workdir=project, notify=print, auth_file=auth_file)
    status = await first.authorize("secure", Consent(Browser()))
    await first.aclose()
    assert status is not None and status.state == "ready"


@pytest.mark.req("MO1")
async def test_mo1_stored_tokens_are_used_without_asking(
    oauth_demo: OAuthDemo, project: Path, notes: Notes, auth_file: Path
) -> None:
    await authorized(oauth_demo, project, auth_file)
    second = McpManager([oauth_demo.config()], workdir=project, notify=notes, auth_file=auth_file)
    second.start()
    await second.wait_started()
    try:
        assert second.statuses()[0].state == "ready"
        assert (await second.call("secure", "whoami", {})).content == "you hold a valid token"
    finally:
        await second.aclose()
    counts = oauth_demo.stats()
    assert (counts["authorize"], counts["refresh"]) == (1, 0)
    assert notes.lines == []


@pytest.mark.req("MO1")
async def test_mo1_a_token_is_refreshed_before_it_expires(
    oauth_demo: OAuthDemo, project: Path, notes: Notes, auth_file: Path
) -> None:
    await authorized(oauth_demo, project, auth_file)
    # 30 s left of the hour: still valid for the server, but inside wave's refresh margin.
    expire_soon(auth_file, 30)
    old = stored(auth_file)["secure"]
    second = McpManager([oauth_demo.config()], workdir=project, notify=notes, auth_file=auth_file)
    second.start()
    await second.wait_started()
    try:
        assert second.statuses()[0].state == "ready"
        assert (await second.call("secure", "whoami", {})).content == "you hold a valid token"
    finally:
        await second.aclose()
    assert oauth_demo.stats()["refresh"] == 1
    new = stored(auth_file)["secure"]
    assert isinstance(new, dict) and isinstance(old, dict)
    assert new["tokens"]["access_token"] != old["tokens"]["access_token"]
    assert new["expires_at"] > time.time() + 3000
    assert stat.S_IMODE(auth_file.stat().st_mode) == 0o600
    assert notes.lines == []


@pytest.mark.req("MO1")
async def test_mo1_a_failing_refresh_asks_again_once(
    oauth_demo: OAuthDemo, project: Path, notes: Notes, auth_file: Path
) -> None:
    await authorized(oauth_demo, project, auth_file)
    expire_soon(auth_file, -10)
    before = auth_file.read_text()
    oauth_demo.control(mode="refresh_fails")
    second = McpManager([oauth_demo.config()], workdir=project, notify=notes, auth_file=auth_file)
    second.start()
    await second.wait_started()
    try:
        assert second.statuses()[0].state == "needs-auth"
    finally:
        await second.aclose()
    assert oauth_demo.stats()["refresh"] == 1  # tried once, not in a loop
    assert notes.lines == [
        "MCP server 'secure' needs authorization (the token could not be refreshed): "
        "run wave mcp auth secure"
    ]
    assert auth_file.read_text() == before  # nothing written on failure


@pytest.mark.req("MO1")
@pytest.mark.parametrize(
    ("mode", "line"),
    [
        ("as_down", "cannot connect to the authorization server (127.0.0.1:"),
        ("deny", "the authorization server refused: access_denied (the user said no)"),
        ("wrong_state", "the redirect came back with a wrong state"),
        ("garbage_token", "Invalid token response"),
        ("token_error", "Token exchange failed (400)"),
    ],
)
async def test_mo1_faults_are_one_line_and_write_no_token(
    manager: McpManager, oauth_demo: OAuthDemo, notes: Notes, auth_file: Path, mode: str, line: str
) -> None:
    oauth_demo.control(mode=mode)
    notes.lines.clear()
    status = await manager.authorize("secure", Consent(Browser()))
    assert status is not None and status.state == "failed"
    assert status.last_error is not None and "\n" not in status.last_error
    assert status.last_error.startswith("authorization failed: ")
    assert line in status.last_error, status.last_error
    assert len(notes.lines) == 1 and line in notes.lines[0]
    assert not auth_file.exists() or "secure" not in stored(auth_file)
    # the session goes on: the server can be authorized once the fault is gone
    oauth_demo.control(mode="ok")
    again = await manager.authorize("secure", Consent(Browser()))
    assert again is not None and again.state == "ready"


@pytest.mark.req("MO2")
async def test_mo2_logout_forgets_the_tokens(
    manager: McpManager, auth_file: Path, notes: Notes
) -> None:
    await manager.authorize("secure", Consent(Browser()))
    assert await manager.logout("secure") is True
    assert "secure" not in stored(auth_file)
    await manager.wait_started()
    assert manager.statuses()[0].state == "needs-auth"
    assert await manager.logout("secure") is False
    assert await manager.logout("nope") is None


@pytest.mark.req("MO2")
async def test_mo2_slash_mcp_auth_shows_the_url_then_the_server(
    manager: McpManager, auth_file: Path
) -> None:
    from wave_tui.agent.commands import CommandOutput
    from wave_tui.features.mcp.command import mcp_command

    shown: list[str] = []
    urls: list[str] = []

    def notify(line: str) -> None:  # the app shows the line at once; the user opens the URL
        shown.append(line)
        urls.append(line.split("open this URL: ", 1)[1].split()[0])
        browser.append(asyncio.ensure_future(asyncio.to_thread(play_browser, urls[-1])))

    browser: list[asyncio.Future[str]] = []
    command = mcp_command(manager, notify)
    listed = await command.run("")
    assert listed == CommandOutput(
        "secure (http): needs-auth\n  last error: needs authorization: /mcp auth secure"
    )
    result = await command.run("auth secure")
    assert "wave is authorized" in await browser[0]
    assert shown[0].startswith("Authorize MCP server 'secure': open this URL: http://127.0.0.1:")
    assert shown[0].endswith("(waiting; Esc cancels)")
    assert result == CommandOutput(
        "MCP server 'secure' authorized\nsecure (http): ready, 1 tool\n  mcp__secure__whoami"
    )
    out = await command.run("logout secure")
    assert out == CommandOutput("MCP server 'secure': authorization removed")


@pytest.mark.req("MO2")
async def test_mo2_an_authorization_cancelled_while_waiting_stores_nothing(
    manager: McpManager, auth_file: Path
) -> None:
    opened = asyncio.Event()

    async def show(url: str) -> None:  # the user never comes back; Esc cancels the command
        opened.set()

    task = asyncio.ensure_future(manager.authorize("secure", Consent(show)))
    await opened.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not auth_file.exists() or "secure" not in stored(auth_file)
