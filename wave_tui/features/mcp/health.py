"""`wave mcp list`'s health check: every configured server connected once, side by side, and
its state, tool count and last error (MA9). Servers run as they would for `wave -p`."""

from __future__ import annotations

import os
from collections.abc import Sequence

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.mcp.admin import ServerEntry
from wave_tui.features.mcp.wiring import startup_timeout


@record
class ServerHealth:
    name: str
    state: str  # ready, failed, needs-auth (ServerState)
    tools: int
    last_error: str | None


# req: MA9
async def server_health(paths: WavePaths, entries: Sequence[ServerEntry]) -> list[ServerHealth]:
    """Connect every server of `entries` (all at once, each bounded by `MCP_TIMEOUT`), then end
    them all."""
    if not entries:
        return []
    from wave_tui.mcp.manager import McpManager

    notes: list[str] = []
    manager = McpManager(
        [e.config for e in entries],
        workdir=paths.project_root,
        notify=notes.append,
        auth_file=paths.mcp_auth_file,
        startup_timeout=startup_timeout(os.environ),
    )
    try:
        manager.start()
        await manager.wait_started()
        found = []
        for status in manager.statuses():
            error = status.last_error
            found.append(ServerHealth(status.name, status.state, len(status.tools), error))
        return found
    finally:
        await manager.aclose()
