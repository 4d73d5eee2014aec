"""What of a project waits for the user's trust: its guarded settings keys (endpoint, telemetry,
variables that run code), the keys that widen what runs unasked, its hooks, MCP and language
servers.

The app asks once per set (`config/trust.py`); `wave -p` runs the project's code and applies its
widening keys (the invoker trusts them) but applies guarded settings keys only once trusted
(`config/project_guard.py`).
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from wave_tui.agent.service import AgentService
from wave_tui.config.trust import TrustRequested, TrustStore
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.features.user_hooks import UserHooks
from wave_tui.features.workflows.wiring import workflows_of
from wave_tui.memory.agents_md import project_memory_files
from wave_tui.memory.imports import outside_imports_request

if TYPE_CHECKING:
    from wave_tui.features.lsp.wiring import LspWiring


def _hooks_of(service: AgentService) -> UserHooks | None:
    return service.extensions.of_type(UserHooks)


def _lsp_of(service: AgentService) -> LspWiring | None:
    # Loaded only when a server is configured; not loaded, there is no wiring to ask.
    if "wave_tui.features.lsp.wiring" not in sys.modules:
        return None
    from wave_tui.features.lsp.wiring import lsp_of

    return lsp_of(service)


# req: FH10
def _outside_imports(service: AgentService) -> TrustRequested | None:
    """The project's memory files importing files from outside it, once per project."""
    paths = service.paths
    return outside_imports_request(project_memory_files(paths, _quiet), paths, _quiet)


def _quiet(_line: str) -> None:
    """The turn's memory loading tells of these files' problems; asking tells nothing."""


def trust_requests(service: AgentService) -> list[TrustRequested]:  # req: HK10
    """Each set that needs trust before it runs: the project's guarded settings keys, its
    hooks, MCP servers and language servers."""
    hooks, mcp, lsp = _hooks_of(service), mcp_of(service), _lsp_of(service)
    workflows = workflows_of(service)
    requests = [
        *service.store.trust_needed(),
        hooks.trust_needed() if hooks is not None else None,
        mcp.trust_needed() if mcp is not None else None,
        lsp.trust_needed() if lsp is not None else None,
        workflows.trust_needed() if workflows is not None else None,
        _outside_imports(service),
    ]
    return [r for r in requests if r is not None]


async def grant_trust(service: AgentService, request: TrustRequested) -> None:  # req: MC6
    """The user trusted `request`: remember it; the hooks run / the servers start from now."""
    if request.kind == "imports":  # read again from the next request on
        await asyncio.to_thread(TrustStore(service.paths.trust_file).record, request)
    elif request.kind in ("settings", "permissions"):
        await _trust_settings(service, request)
    elif request.kind == "hooks":
        hooks = _hooks_of(service)
        if hooks is not None:
            await hooks.grant_trust(request)
    elif request.kind == "mcp":
        mcp = mcp_of(service)
        if mcp is not None:
            await mcp.grant_trust(request)
    elif request.kind == "lsp":
        lsp = _lsp_of(service)
        if lsp is not None:
            await lsp.grant_trust(request)
    elif request.kind == "workflows":
        workflows = workflows_of(service)
        if workflows is not None:
            await workflows.grant_trust(request)


# req: HR12
async def _trust_settings(service: AgentService, request: TrustRequested) -> None:
    """The user trusted the project's guarded or widening settings keys: they apply from the
    next read."""
    trust = TrustStore(service.paths.trust_file)
    await asyncio.to_thread(trust.record, request)
    await asyncio.to_thread(service.store.refresh)
