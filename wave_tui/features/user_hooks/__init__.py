"""User hooks: commands from the `hooks` key of the settings files, run at fixed events."""

from wave_tui.features.user_hooks.config import (
    HookConfig,
    HookSpec,
    Layer,
    live_layers,
    parse_layers,
)
from wave_tui.features.user_hooks.engine import SessionInfo, SessionSource, UserHooks
from wave_tui.features.user_hooks.listing import hooks_command, render_hooks

__all__ = [
    "HookConfig",
    "HookSpec",
    "Layer",
    "SessionInfo",
    "SessionSource",
    "UserHooks",
    "hooks_command",
    "live_layers",
    "parse_layers",
    "render_hooks",
]
