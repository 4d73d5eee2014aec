"""What of a project's own code waits for the user's trust: its hooks and its MCP servers.

The app asks once per set (`config/trust.py`); `wave -p` never needs to (the invoker trusts).
"""

from __future__ import annotations

from wave_tui.agent.service import AgentService
from wave_tui.config.trust import TrustRequested
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.features.user_hooks import UserHooks


def _hooks_of(service: AgentService) -> UserHooks | None:
    return service.extensions.of_type(UserHooks)


def trust_requests(service: AgentService) -> list[TrustRequested]:  # req: HK10
    """Each set that needs trust before it runs: project hooks first, then MCP servers."""
    hooks, mcp = _hooks_of(service), mcp_of(service)
    requests = [
        hooks.trust_needed() if hooks is not None else None,
        mcp.trust_needed() if mcp is not None else None,
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
