"""OAuth tokens of HTTP MCP servers in `~/.wave/mcp-auth.json`, one entry per server name.

    {"servers": {"NAME": {"url": "…", "tokens": {…}, "client": {…},
                          "expires_at": 1760000000.0, "lifetime": 3600.0,
                          "wanted_scope": "…"}}}

The file is mode 0600 from its first byte (it is created so before anything is written), every
change is a locked read-modify-write with an atomic replace, and an entry counts only for the
URL it was obtained for (a server moved elsewhere is asked again). `ServerTokens` is the SDK's
`TokenStorage` over one entry: the registered client is kept in memory until tokens arrive, so
an authorization that fails half-way writes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from wave_tui.config.fileio import locked_update

FILE_MODE = 0o600


def _servers(text: str | None) -> dict[str, Any]:
    if not text or not text.strip():
        return {}
    with contextlib.suppress(json.JSONDecodeError):
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("servers"), dict):
            return dict(data["servers"])
    return {}


def read_entry(path: Path, name: str, url: str) -> dict[str, Any] | None:
    """The stored entry of server `name` when it was obtained for `url`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    entry = _servers(text).get(name)
    if isinstance(entry, dict) and entry.get("url") == url:
        return entry
    return None


def _private(path: Path) -> None:
    """Create the file 0600 if missing and make sure an existing one is 0600 too."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    os.close(fd)
    os.chmod(path, FILE_MODE)


# req: MO1
def write_entry(path: Path, name: str, entry: dict[str, Any] | None) -> bool:
    """Set (or, with None, remove) server `name`'s entry; True when one was removed or set."""
    if entry is None and not path.exists():
        return False
    _private(path)
    changed = False

    def update(text: str | None) -> str | None:
        nonlocal changed
        servers = _servers(text)
        if entry is None:
            if name not in servers:
                return None
            del servers[name]
        else:
            servers[name] = entry
        changed = True
        return json.dumps({"servers": servers}, indent=2, sort_keys=True) + "\n"

    locked_update(path, update)
    return changed


# req: MO1
class ServerTokens:
    """`mcp.client.auth.TokenStorage` for one server; `fresh` ignores what is stored (a new
    authorization registers again, since its redirect port is new)."""

    def __init__(self, path: Path, name: str, url: str, *, fresh: bool = False) -> None:
        self._path = path
        self._name = name
        self._url = url
        self._entry: dict[str, Any] = {} if fresh else dict(read_entry(path, name, url) or {})
        self._client: OAuthClientInformationFull | None = None
        self._metadata: dict[str, Any] | None = None

    def has_tokens(self) -> bool:
        return bool(self._entry.get("tokens"))

    def redirect_uri(self) -> str | None:
        uris = (self._entry.get("client") or {}).get("redirect_uris") or []
        return str(uris[0]) if uris else None

    def expiry(self) -> tuple[float, float] | None:
        at, lifetime = self._entry.get("expires_at"), self._entry.get("lifetime")
        if isinstance(at, int | float) and isinstance(lifetime, int | float):
            return float(at), float(lifetime)
        return None

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._entry.get("tokens")
        return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        entry = dict(self._entry)
        entry["url"] = self._url
        entry["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        if self._client is not None:
            entry["client"] = self._client.model_dump(mode="json", exclude_none=True)
        if self._metadata is not None:
            entry["metadata"] = self._metadata
        if tokens.expires_in:
            entry["expires_at"] = time.time() + int(tokens.expires_in)
            entry["lifetime"] = float(tokens.expires_in)
        else:
            entry.pop("expires_at", None)
            entry.pop("lifetime", None)
        await asyncio.to_thread(write_entry, self._path, self._name, entry)
        self._entry = entry

    def wanted_scope(self) -> str | None:
        """The scope the server asked for beyond the tokens' (a step-up nobody was there to
        grant): the next authorization asks for it too."""
        found = self._entry.get("wanted_scope")
        return found if isinstance(found, str) and found.strip() else None

    async def remember_wanted_scope(self, scope: str) -> None:  # req: MA13
        entry = {**self._entry, "url": self._url, "wanted_scope": scope}
        await asyncio.to_thread(write_entry, self._path, self._name, entry)
        self._entry = entry

    def server_metadata(self) -> dict[str, Any]:
        found = self._entry.get("metadata")
        return dict(found) if isinstance(found, dict) else {}

    def remember_metadata(self, metadata: dict[str, Any]) -> None:
        self._metadata = metadata

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self._client is not None:
            return self._client
        raw = self._entry.get("client")
        return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._client = client_info
