"""The authorization URL shown to the user, and opened in a browser only where one exists.

A browser exists when `BROWSER` names one, on macOS, or under a graphical session (`DISPLAY`,
`WAYLAND_DISPLAY`) that is not an SSH login; elsewhere (a server, CI, a container) only the URL
is shown, to open on any machine whose browser reaches 127.0.0.1 here.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping
from urllib.parse import urlsplit

_WEB_SCHEMES = ("http", "https")


def has_browser(environ: Mapping[str, str] | None = None) -> bool:  # req: MO2
    env = os.environ if environ is None else environ
    if env.get("BROWSER"):
        return True
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY"):
        return False
    if sys.platform == "darwin":
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


async def show_authorization_url(name: str, url: str, cancel_hint: str) -> str:  # req: MO2
    """Open `url` where a browser exists (off the event loop); the line to show either way.

    The URL is the authorization server's: only an http(s) page is ever handed to the browser
    (`webbrowser`/`xdg-open` would launch whatever handles a `file:`, `smb:` or custom scheme)."""
    if urlsplit(url).scheme.lower() not in _WEB_SCHEMES:
        return (
            f"Authorize MCP server {name!r}: refused: its authorization server gave a "
            f"non-web address ({url[:200]})"
        )
    opened = False
    if has_browser():
        import webbrowser

        opened = await asyncio.to_thread(webbrowser.open, url)
    how = "opened in your browser; if it did not open, visit" if opened else "open this URL"
    return f"Authorize MCP server {name!r}: {how}: {url}  (waiting; {cancel_hint})"
