"""The policy's rules and this session's grants as the permissions dialog lists them, and the
revoking of one grant."""

from __future__ import annotations

from wave_tui.config.records import record
from wave_tui.permissions.policy import PermissionPolicy


@record
class PermissionState:
    mode: str
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    session_grants: tuple[str, ...]


def permission_state(policy: PermissionPolicy) -> PermissionState:
    return PermissionState(
        mode=policy.mode,
        allow=tuple(map(str, policy.allow)),
        deny=tuple(map(str, policy.deny)),
        session_grants=tuple(map(str, policy.session_allow)),
    )


def revoke_grant(policy: PermissionPolicy, grant: str) -> bool:
    """Remove one session grant (as `permission_state` listed it)."""
    for rule in list(policy.session_allow):
        if str(rule) == grant:
            policy.session_allow.remove(rule)
            return True
    return False
