"""The authorization URL an MCP server's authorization server gives is opened in the browser
only when it is a web page: a `file:`, `smb:` or custom-scheme address would launch whatever
handles it. The browser here is a real program (`BROWSER`, which `webbrowser` runs)."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import pytest

from wave_tui.features.mcp.browser import show_authorization_url


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `BROWSER` program that records each address it is asked to open."""
    opened = tmp_path / "opened.txt"
    program = tmp_path / "browser.sh"
    program.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {opened}\n')
    program.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(program))
    # `webbrowser` reads BROWSER once, when it first registers the browsers: each test starts
    # it afresh so its own program is the one asked.
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    return opened


@pytest.mark.req("MO2")
@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "smb://127.0.0.1/share", "x-launcher://run?cmd=calc", "javascript:1"],
)
async def test_a_non_web_authorization_address_is_never_opened(browser: Path, url: str) -> None:
    line = await show_authorization_url("evil", url, "Ctrl+C cancels")
    assert "refused" in line and "non-web address" in line
    assert not browser.exists()


@pytest.mark.req("MO2")
async def test_a_web_authorization_address_is_opened(browser: Path) -> None:
    url = "https://127.0.0.1:9/authorize?client_id=wave&state=x"
    line = await show_authorization_url("srv", url, "Ctrl+C cancels")
    assert "opened in your browser" in line
    assert browser.read_text().splitlines() == [url]
