"""Project settings keys that widen what runs without asking: the allow rules, a wider starting
mode, the Bash sandbox's settings. The second group that waits for trust (`project_guard.py`).

A repository's `.wave/settings.json` that says `permissions.allow: ["Bash"]`, `defaultMode:
bypassPermissions` or `sandbox: {enabled: false}` would make its author's commands run on the
user's machine unasked. In the app, the SDK and ACP these keys apply only once the user trusted
the project for exactly that set (`~/.wave/trust.json`, kind `permissions`; a changed value is a
changed set and asks again, so a file rewritten during a session widens nothing until then).
`wave -p` keeps the invoker's trust: running headless in a folder trusts its settings.
Narrowing keys (`permissions.deny`, `defaultMode` `default` or `plan`) always apply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from wave_tui.config.trust import TrustKind

PERMISSIONS_KEY = "permissions"
ALLOW_KEY = "allow"
MODE_KEY = "defaultMode"
SANDBOX_KEY = "sandbox"
# Starting modes that ask at least as much as the default: a project may always choose them.
NARROW_MODES = frozenset({"default", "plan"})
TRUST_KIND: TrustKind = "permissions"


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _wider_mode(permissions: Mapping[str, Any]) -> bool:
    return MODE_KEY in permissions and permissions[MODE_KEY] not in NARROW_MODES


# req: HR11
# req: HR5
def widening_items(data: Mapping[str, Any]) -> list[str]:
    """The widening keys one non-user settings file sets, as the trust prompt shows them (each
    allow rule and sandbox key with its value: a changed value is a changed set)."""
    items: list[str] = []
    permissions = data.get(PERMISSIONS_KEY)
    if isinstance(permissions, Mapping):
        allow = permissions.get(ALLOW_KEY)
        if isinstance(allow, list):
            items += [f"permissions.allow={_shown(rule)}" for rule in allow]
        if _wider_mode(permissions):
            items.append(f"permissions.defaultMode={_shown(permissions[MODE_KEY])}")
    sandbox = data.get(SANDBOX_KEY)
    if isinstance(sandbox, Mapping):
        items += [f"sandbox.{key}={_shown(value)}" for key, value in sandbox.items()]
    elif SANDBOX_KEY in data:
        items.append(f"sandbox={_shown(sandbox)}")
    return items


# req: HR1
def without_widening(data: Mapping[str, Any]) -> dict[str, Any]:
    """`data` without its widening keys: deny rules and a narrow mode stay."""
    kept = {key: value for key, value in data.items() if key != SANDBOX_KEY}
    permissions = kept.get(PERMISSIONS_KEY)
    if isinstance(permissions, Mapping):
        narrowed = {key: value for key, value in permissions.items() if key != ALLOW_KEY}
        if _wider_mode(narrowed):
            del narrowed[MODE_KEY]
        kept[PERMISSIONS_KEY] = narrowed
    return kept
