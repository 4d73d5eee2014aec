"""Moved to `wave_tui.permissions`; kept as a re-export while other branches still import it.

Remove once every import names `wave_tui.permissions.policy` / `.rules` directly.
"""

from __future__ import annotations

from wave_tui.permissions.policy import (
    PERMISSION_MODES,
    Decision,
    PermissionMode,
    PermissionPolicy,
    SafeZones,
)
from wave_tui.permissions.rules import PermissionRule, path_candidates

__all__ = [
    "PERMISSION_MODES",
    "Decision",
    "PermissionMode",
    "PermissionPolicy",
    "PermissionRule",
    "SafeZones",
    "path_candidates",
]
