"""What a settings change during a session opened to running without asking, said in one notice.

A project file's widening keys are held back until trusted (`config/widening.py`); the user's
own file applies at once, and so do keys the user just trusted. Either way the change is never
silent: new allow rules, a wider starting mode, the sandbox turned off or opened wider are named
in one line when they take effect.
"""

from __future__ import annotations

from wave_tui.config.effective import EffectiveSettings
from wave_tui.config.modes import PermissionMode

# Each mode asks at most as much as the ones before it.
_MODE_ORDER: tuple[PermissionMode, ...] = ("plan", "default", "acceptEdits", "bypassPermissions")


def _rank(mode: PermissionMode | None) -> int:
    return _MODE_ORDER.index(mode or "default")


def _new(before: list[str] | tuple[str, ...], after: list[str] | tuple[str, ...]) -> list[str]:
    return [item for item in after if item not in before]


# req: HR1
def widened(before: EffectiveSettings, after: EffectiveSettings) -> list[str]:
    """What `after` lets run unasked that `before` did not (empty: nothing widened)."""
    parts = [
        f"permissions.allow {rule}"
        for rule in _new(before.permissions.allow, after.permissions.allow)
    ]
    if _rank(after.permissions.default_mode) > _rank(before.permissions.default_mode):
        parts.append(f"defaultMode {after.permissions.default_mode}")
    old, new = before.sandbox, after.sandbox
    if old.enabled and not new.enabled:
        parts.append("sandbox off")
    elif new.enabled:
        parts += [
            f"sandbox.writablePaths {p}" for p in _new(old.writable_paths, new.writable_paths)
        ]
        if old.network == "none" and new.network == "allow":
            parts.append("sandbox.network allow")
        sockets = _new(old.allow_unix_sockets, new.allow_unix_sockets)
        parts += [f"sandbox.allowUnixSockets {s}" for s in sockets]
    return parts


def widened_notice(parts: list[str]) -> str:
    return f"settings changed: more runs without asking now: {', '.join(parts)}"
