"""The permission dialog's and the trust prompt's door (UX2, UX17, UX18, HK10, MC6).

What a call will do and what "always allow" would grant, this session's grants, the mode
cycle, and the project's hooks / MCP servers that wait for the user's trust.
"""

from __future__ import annotations

import asyncio
from typing import Any

from wave_tui.config.settings import PermissionMode
from wave_tui.config.trust import TrustRequested
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.policy import GrantOption, grant_label, grant_options
from wave_tui.session import project_trust
from wave_tui.session.core import SessionCore
from wave_tui.session.permission_preview import PermissionPreview, permission_preview
from wave_tui.session.permission_state import PermissionState, permission_state, revoke_grant

# Shift+Tab steps through these; any other mode steps back to the first.
MODE_CYCLE: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan")


class PermissionAccess:
    def __init__(self, core: SessionCore) -> None:
        self._core = core

    # req: UX2
    def grant_label(self, tool: str, args: dict[str, Any]) -> str:
        """What "Always allow … this session" allows for this call (the dialog's label)."""
        root = self._core.paths.project_root
        return grant_label(AnalysedUse.of(tool, args, root), root)

    # req: CV10
    def grant_options(self, tool: str, args: dict[str, Any]) -> tuple[GrantOption, ...]:
        """The dialog's "always … this session" choices (Bash: its prefix rule, then the exact
        command); the answer carries the chosen one's rules."""
        root = self._core.paths.project_root
        return grant_options(AnalysedUse.of(tool, args, root), root)

    # req: UX18
    async def preview(self, tool: str, args: dict[str, Any]) -> PermissionPreview:
        """What the call will do: the diff of an Edit/Write, the full Bash command."""
        root = self._core.paths.project_root
        return await asyncio.to_thread(permission_preview, tool, args, root)

    def state(self) -> PermissionState | None:
        service = self._core.service
        return permission_state(service.policy) if service is not None else None

    def revoke_grant(self, grant: str) -> bool:
        """Remove one of this session's "always allow" grants."""
        service = self._core.service
        return service is not None and revoke_grant(service.policy, grant)

    # req: UX17
    def cycle_mode(self) -> PermissionMode:
        """default -> acceptEdits -> plan -> default (another mode goes back to default); it
        holds for the rest of the session."""
        service = self._core.agent()
        current = service.policy.mode
        index = MODE_CYCLE.index(current) + 1 if current in MODE_CYCLE else 0
        mode = MODE_CYCLE[index % len(MODE_CYCLE)]
        service.set_permission_mode(mode)
        self._core.status_changed()
        return mode

    # req: MC8
    def trust_requests(self) -> list[TrustRequested]:
        """The project's hook / MCP server sets that wait for the user's trust (app only)."""
        service = self._core.service
        return project_trust.trust_requests(service) if service is not None else []

    # req: HK10
    async def grant_trust(self, requests: list[TrustRequested]) -> None:
        """The user trusted these sets: remembered; hooks run / servers start from now."""
        service = self._core.service
        if service is not None:
            for request in requests:
                await project_trust.grant_trust(service, request)
