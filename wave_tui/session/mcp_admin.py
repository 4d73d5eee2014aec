"""The `wave mcp` commands' door to the MCP feature: the configured servers, editing their
files, and authorizing one (the CLI imports no feature or MCP module itself)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from wave_tui.config.paths import WavePaths
from wave_tui.features.mcp.admin import (
    ADD_SCOPES,
    AddScope,
    McpAdminError,
    ServerEntry,
    Transport,
    add_server,
    configured,
    find,
    new_entry,
    parse_pairs,
    remove_server,
)
from wave_tui.features.mcp.browser import show_authorization_url
from wave_tui.features.mcp.health import ServerHealth, server_health

__all__ = [
    "ADD_SCOPES",
    "AddScope",
    "McpAdminError",
    "ServerEntry",
    "ServerHealth",
    "Transport",
    "add_server",
    "authorization_stored",
    "authorize",
    "configured",
    "find",
    "logout",
    "new_entry",
    "parse_pairs",
    "remove_server",
    "server_health",
]


def authorization_stored(paths: WavePaths, entry: ServerEntry) -> bool:
    """Whether tokens are stored for this server at its URL."""
    url = getattr(entry.config, "url", None)
    if url is None or not paths.mcp_auth_file.exists():
        return False
    from wave_tui.mcp.oauth_store import read_entry

    stored = read_entry(paths.mcp_auth_file, entry.name, url)
    return bool(stored and stored.get("tokens"))


# req: MO2
async def authorize(
    paths: WavePaths, name: str, say: Callable[[str], Awaitable[None] | None]
) -> tuple[bool, str]:
    """Run the OAuth flow for server `name` (its URL goes to `say`); (ok, the closing line)."""
    entry = find(paths, name)
    if entry.config.kind == "stdio":
        raise McpAdminError(f"MCP server {name!r} is a stdio server: no authorization")
    from wave_tui.mcp.http_auth import Consent
    from wave_tui.mcp.manager import McpManager

    notes: list[str] = []
    manager = McpManager(
        [entry.config],
        workdir=paths.project_root,
        notify=notes.append,
        auth_file=paths.mcp_auth_file,
    )

    async def show(url: str) -> None:
        said = say(await show_authorization_url(name, url, "Ctrl+C cancels"))
        if said is not None:
            await said

    try:
        status = await manager.authorize(name, Consent(show))
    finally:
        await manager.aclose()
    assert status is not None
    if status.state == "ready":
        if not authorization_stored(paths, entry):
            return True, f"MCP server {name!r} did not ask for authorization; nothing stored"
        count = len(status.tools)
        return True, f"MCP server {name!r} authorized ({count} tool{'s' if count != 1 else ''})"
    return False, f"MCP server {name!r}: {status.last_error or status.state}"


async def logout(paths: WavePaths, name: str) -> bool:  # req: MO2
    """Forget server `name`'s tokens; False when none were stored."""
    import asyncio

    find(paths, name)
    from wave_tui.mcp.oauth_store import write_entry

    return await asyncio.to_thread(write_entry, paths.mcp_auth_file, name, None)
