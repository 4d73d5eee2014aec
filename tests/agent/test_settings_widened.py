"""What a settings change opened to running without asking: named in one notice, never silent;
a change that only narrows says nothing."""

from __future__ import annotations

import pytest

from wave_tui.agent.settings_widened import widened
from wave_tui.config.effective import EffectivePermissions, EffectiveSettings
from wave_tui.config.modes import PermissionMode
from wave_tui.config.schema import SandboxConfig

pytestmark = pytest.mark.req("HR1")


def _settings(
    allow: tuple[str, ...] = (), mode: PermissionMode | None = None, **sandbox: object
) -> EffectiveSettings:
    return EffectiveSettings(
        permissions=EffectivePermissions(allow=allow, default_mode=mode),
        sandbox=SandboxConfig.model_validate(sandbox),
    )


def test_each_widening_is_named() -> None:
    before = _settings(("Read",), "default", enabled=True)
    after = _settings(("Read", "Bash"), "bypassPermissions", enabled=False)
    assert widened(before, after) == [
        "permissions.allow Bash",
        "defaultMode bypassPermissions",
        "sandbox off",
    ]
    opened = _settings(enabled=True, network="allow", writablePaths=["/srv"])
    assert widened(_settings(enabled=True), opened) == [
        "sandbox.writablePaths /srv",
        "sandbox.network allow",
    ]


def test_a_narrowing_change_says_nothing() -> None:
    before = _settings(("Read", "Bash"), "acceptEdits", enabled=False)
    after = _settings(("Read",), "plan", enabled=True)
    assert widened(before, after) == []
