"""What the settings in force change in a running agent.

The permission mode (`--permission-mode` and `/`-cycled modes win over `defaultMode`), the
allow / deny rules (with `--allowedTools` / `--disallowedTools` and a running command's
`allowed-tools`), one notice per new problem in the settings files, one notice when a change
opened more to running without asking (`settings_widened.py`), and every
`SessionObserver` (the endpoint, auto memory, hooks read their settings from there).
"""

from __future__ import annotations

from collections.abc import Callable

from wave_tui.agent import events as ev
from wave_tui.agent.agent_options import AgentOptions
from wave_tui.agent.events import Emit
from wave_tui.agent.extensions import Extensions
from wave_tui.agent.settings_widened import widened, widened_notice
from wave_tui.config.settings import EffectiveSettings, SettingsStore
from wave_tui.permissions.policy import PermissionPolicy


class SettingsApplication:
    def __init__(
        self,
        *,
        options: AgentOptions,
        store: SettingsStore,
        policy: PermissionPolicy,
        turn_rules: Callable[[], tuple[str, ...]],
        emit: Emit,
        extensions: Extensions,
    ) -> None:
        self._options = options
        self._store = store
        self._policy = policy
        self._turn_rules = turn_rules
        self._emit = emit
        self._extensions = extensions
        self._applied: EffectiveSettings | None = None  # None: the session's first settings

    def apply(self, settings: EffectiveSettings) -> None:
        options = self._options
        self._policy.mode = (
            options.permission_mode or settings.permissions.default_mode or "default"
        )
        self._policy.set_rules(
            [*settings.permissions.allow, *options.allowed_tools, *self._turn_rules()],
            [*settings.permissions.deny, *options.disallowed_tools],
        )
        for problem in self._store.new_problems():
            self._emit(ev.Notice("settings", problem))
        if self._applied is not None and settings is not self._applied:
            parts = widened(self._applied, settings)
            if parts:
                self._emit(ev.Notice("settings", widened_notice(parts)))
        self._applied = settings
        for extension in self._extensions.session_observers:
            extension.on_settings(settings)
