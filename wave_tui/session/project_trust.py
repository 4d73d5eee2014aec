"""What of a project's own code waits for the user's trust: its hooks, MCP and language servers.

The app asks once per set (`config/trust.py`); `wave -p` never needs to (the invoker trusts).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from wave_tui.agent.service import AgentService
from wave_tui.config.trust import TrustRequested
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.features.user_hooks import UserHooks

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


def trust_requests(service: AgentService) -> list[TrustRequested]:  # req: HK10
    """Each set that needs trust before it runs: project hooks first, then MCP servers."""
    hooks, mcp, lsp = _hooks_of(service), mcp_of(service), _lsp_of(service)
    requests = [
        hooks.trust_needed() if hooks is not None else None,
        mcp.trust_needed() if mcp is not None else None,
        lsp.trust_needed() if lsp is not None else None,
    ]
    return [r for r in requests if r is not None]


async def grant_trust(service: AgentService, request: TrustRequested) -> None:  # req: MC6
    """The user trusted `request`: remember it; the hooks run / the servers start from now."""
    if request.kind == "hooks":
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
