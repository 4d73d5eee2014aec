"""Settings: the three settings files, the WAVE_* environment, and the merged result.

`SettingsStore` merges the sources (`sources.py`) and validates the result against
`SettingsSchema` (the one schema, in `schema.py`), highest precedence first:
the real environment, the three files (user < project < local, later wins; objects merged
deeply, `permissions.allow/deny` concatenated), then the files' `env` entries. So for `model`:
real WAVE_MODEL > settings `model` > settings `env` WAVE_MODEL. Auto memory (S6) is the
exception: only the user file sets it, then `WAVE_DISABLE_AUTO_MEMORY` /
`WAVE_AUTO_MEMORY_FREQUENCY`, then the defaults.

`SettingsStore.current()` is the live-reload point: it re-reads a file only when its stat changed,
and `version` counts the changes (the one change signal; `subscribe` pushes them).
Nothing here raises on bad input; each problem becomes one line in `EffectiveSettings.problems`.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from wave_tui.config.effective import (
    EffectivePermissions,
    EffectiveSettings,
    effective_settings,
    resolve_max_input_tokens,
    resolve_max_output_tokens,
)
from wave_tui.config.fileio import locked_update
from wave_tui.config.modes import PERMISSION_MODES, PermissionMode
from wave_tui.config.paths import WavePaths, display_path
from wave_tui.config.project_guard import TRUST_KIND as SETTINGS_KIND
from wave_tui.config.project_guard import GuardedLayers, guard_layers
from wave_tui.config.records import record
from wave_tui.config.schema import (
    AUTO_MEMORY_FREQUENCY_MAX,
    AUTO_MEMORY_FREQUENCY_MIN,
    AUTO_MEMORY_KEYS,
    DEFAULT_CLEANUP_PERIOD_DAYS,
    DEFAULT_MAX_INPUT_TOKENS,
    DEFAULT_MAX_OUTPUT_TOKENS,
    ENV_AUTO_MEMORY_FREQUENCY,
    ENV_DISABLE_AUTO_MEMORY,
    FILE_KEYS,
    ModelCapabilities,
    ModelConfig,
    PermissionsConfig,
    SettingsField,
    SettingsSchema,
    settings_fields,
)
from wave_tui.config.sources import (
    SCOPES,
    SettingsLayer,
    SettingsScope,
    by_precedence,
    env_source,
    file_contributions,
    files_source,
    key_problem,
    parse_settings_file,
    settings_env_block,
)
from wave_tui.config.trust import TrustMode, TrustRequested

__all__ = [
    "AUTO_MEMORY_FREQUENCY_MAX",
    "AUTO_MEMORY_FREQUENCY_MIN",
    "AUTO_MEMORY_KEYS",
    "BARE_SCOPES",
    "DEFAULT_CLEANUP_PERIOD_DAYS",
    "DEFAULT_MAX_INPUT_TOKENS",
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "ENV_AUTO_MEMORY_FREQUENCY",
    "ENV_DISABLE_AUTO_MEMORY",
    "PERMISSION_MODES",
    "SCOPES",
    "EffectivePermissions",
    "EffectiveSettings",
    "ModelCapabilities",
    "ModelConfig",
    "PermissionMode",
    "PermissionsConfig",
    "SettingsField",
    "SettingsFileError",
    "SettingsLayer",
    "SettingsSchema",
    "SettingsScope",
    "SettingsStore",
    "display_path",
    "resolve_max_input_tokens",
    "resolve_max_output_tokens",
    "save_user_settings",
    "settings_fields",
]

# -- the store --------------------------------------------------------------------------------

_Signature = tuple[int, int, int] | None  # (mtime_ns, size, inode), None when missing


def _signature(path: Path) -> _Signature:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@record(frozen=False)
class _FileState:
    path: Path
    scope: SettingsScope
    signature: _Signature | Literal["unread"] = "unread"
    valid: dict[str, Any] | None = None  # None: the file does not exist (or never parsed)
    problems: list[str] = field(default_factory=list)


# `wave --bare`: the user's own settings only, the project's files unread.
BARE_SCOPES: tuple[SettingsScope, ...] = ("user",)


class SettingsStore:
    """The three settings files plus the environment, reloaded whenever a file changes."""

    def __init__(
        self,
        paths: WavePaths,
        environ: Mapping[str, str] | None = None,
        on_problem: Callable[[str], object] | None = None,
        *,
        trust: TrustMode = "ask",
        scopes: tuple[SettingsScope, ...] = SCOPES,
    ) -> None:
        self.paths = paths
        # "invoker" (`wave -p`): the project's widening keys apply on the invoker's trust.
        self._trust = trust
        self._environ = environ if environ is not None else os.environ
        # `scopes`: which of the three files are read (`wave --bare`: the user's only).
        read = [
            (path, scope)
            for path, scope in zip(paths.settings_files, SCOPES, strict=True)
            if scope in scopes
        ]
        self._files = [path for path, _scope in read]
        self._states = [_FileState(path, scope) for path, scope in read]
        self._lock = threading.RLock()
        self._problem_listeners: list[Callable[[str], object]] = [on_problem] if on_problem else []
        self._subscribers: list[Callable[[EffectiveSettings], object]] = []
        self._pending: list[str] = []
        self._last_failure: str | None = None
        self._effective = EffectiveSettings()
        # The files as they apply: a project's guarded keys held back until trusted.
        self._guarded = GuardedLayers((), (), (), ())
        self._applied: list[SettingsLayer] = []
        self._trust_signature: _Signature | Literal["unread"] = "unread"
        self._version = 0
        self.refresh()

    @property
    def files(self) -> list[Path]:
        return list(self._files)

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment this store reads WAVE_* variables from (the real one by default)."""
        return self._environ

    @property
    def version(self) -> int:
        """Grows by one each time the effective settings change: compare to see if they did."""
        return self._version

    def current(self) -> EffectiveSettings:
        """The settings in force now. Cheap when nothing changed (three stats); never raises."""
        self.refresh()
        return self._effective

    def layers(self) -> list[SettingsLayer]:
        """The files that parsed, lowest precedence first, with their valid raw values (for
        features that combine files themselves, e.g. hooks run from every file)."""
        self.refresh()
        with self._lock:
            return [
                SettingsLayer(layer.path, layer.scope, dict(layer.data)) for layer in self._applied
            ]

    def settings_trust_needed(self) -> TrustRequested | None:
        """The project's guarded keys (endpoint, telemetry, variables that run code) held back
        until the user trusts them (None: nothing is)."""
        return next((r for r in self.trust_needed() if r.kind == SETTINGS_KIND), None)

    def trust_needed(self) -> list[TrustRequested]:
        """Every set of project settings keys held back until the user trusts it."""
        self.refresh()
        with self._lock:
            return list(self._guarded.requests)

    def save_user(self, **updates: Any) -> EffectiveSettings:
        """`save_user_settings`, then reload at once so subscribers hear of it now. Raises as
        `save_user_settings` does (blocking file I/O: call it off the event loop)."""
        save_user_settings(self.paths, **updates)
        return self.current()

    def new_problems(self) -> list[str]:
        """Problems that appeared since the last call (each reported once while it persists)."""
        with self._lock:
            pending, self._pending = self._pending, []
        return pending

    def on_problem(self, callback: Callable[[str], object]) -> Callable[[], None]:
        """Call `callback` with each new problem line; returns a function that unregisters it."""
        self._problem_listeners.append(callback)
        return lambda: self._problem_listeners.remove(callback)

    def subscribe(self, callback: Callable[[EffectiveSettings], object]) -> Callable[[], None]:
        """Call `callback` with the new settings whenever they change; returns an unsubscribe."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    async def watch(
        self,
        *,
        debounce_ms: int = 1_600,
        stop_event: Any = None,
        force_polling: bool | None = None,
    ) -> AsyncIterator[EffectiveSettings]:
        """Yield the new settings after each change to a settings file (see `live.py`)."""
        from wave_tui.config.live import watch_settings  # lazy: watchfiles only for the app

        async for settings in watch_settings(
            self, debounce_ms=debounce_ms, stop_event=stop_event, force_polling=force_polling
        ):
            yield settings

    def refresh(self) -> bool:
        """Reload the files whose stat changed; True when the effective settings changed."""
        after: EffectiveSettings | None = None
        try:
            with self._lock:
                before = self._effective
                new_problems = self._reload_locked()
                if self._effective != before:
                    after = self._effective
        except Exception as exc:  # the live-reload path must never take the agent down
            line = f"settings: reload failed: {exc!r}"
            with self._lock:
                new_problems = [] if line == self._last_failure else [line]
                self._last_failure = line
                self._pending.extend(new_problems)
        for line in new_problems:
            for listener in list(self._problem_listeners):
                with contextlib.suppress(Exception):
                    listener(line)
        if after is not None:
            with self._lock:
                self._version += 1
            for subscriber in list(self._subscribers):
                with contextlib.suppress(Exception):
                    subscriber(after)
            return True
        return False

    # req: X9
    def _reload_locked(self) -> list[str]:
        signatures = [_signature(path) for path in self._files]
        # Trusting (or no longer trusting) the project's guarded keys changes what applies.
        trust_signature = _signature(self.paths.trust_file)
        if trust_signature == self._trust_signature and all(
            st.signature == sig for st, sig in zip(self._states, signatures, strict=True)
        ):
            return []
        self._trust_signature = trust_signature
        for state, sig in zip(self._states, signatures, strict=True):
            if state.signature == sig:
                continue
            label = display_path(state.path, self.paths.project_root, self.paths.home)
            try:
                state.valid, state.problems = parse_settings_file(
                    state.path, label, state.valid or {}
                )
            except Exception as exc:
                # Whatever else breaks on one file, that file alone is named and ignored.
                state.problems = [f"{label}: cannot parse: {exc!r:.100}; file ignored"]
            state.signature = sig
        previous = set(self._effective.problems)
        self._effective = self._build()
        fresh = [line for line in self._effective.problems if line not in previous]
        self._pending.extend(fresh)
        return fresh

    def _build(self) -> EffectiveSettings:
        problems = [line for state in self._states for line in state.problems]
        read = [st for st in self._states if st.valid is not None]
        self._guarded = guard_layers(
            ((st.scope, st.valid or {}) for st in read),
            self.paths.project_root,
            self.paths.trust_file,
            self._trust,
        )
        problems.extend(self._guarded.problems)
        layers = [
            SettingsLayer(st.path, st.scope, data)
            for st, data in zip(read, self._guarded.layers, strict=True)
        ]
        self._applied = layers
        merged = file_contributions(layers, self.paths, problems)
        user = next((layer.data for layer in layers if layer.scope == "user"), {})
        environ = self._environ
        block = {k: v for k, v in settings_env_block(merged, user).items() if not environ.get(k)}
        values = by_precedence(
            [
                env_source(environ, lambda name: name, problems),
                files_source(merged),
                env_source(block, lambda name: f"settings env {name}", problems),
            ]
        )
        try:
            parsed = SettingsSchema.model_validate(values)
        except ValidationError as exc:  # each value was valid alone, so this should not happen
            problems.append(
                f"settings: could not merge ({exc.error_count()} errors); using defaults"
            )
            parsed = SettingsSchema()
        extras = {k: v for k, v in merged.items() if k not in FILE_KEYS}
        return effective_settings(parsed, extras, problems)


# -- writing the user file ------------------------------------------------------------------


class SettingsFileError(ValueError):
    """A settings file cannot be updated safely (its content is left untouched)."""


def _iter_updates(updates: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    aliases = {name: key for key, name in FILE_KEYS.items()}
    for name, value in updates.items():
        if name in aliases:
            yield aliases[name], value
        elif name in FILE_KEYS:
            yield name, value
        else:
            raise ValueError(f"unknown setting {name!r}; known: {', '.join(sorted(aliases))}")


def save_user_settings(paths: WavePaths, **updates: Any) -> dict[str, Any]:
    """Set keys of `~/.wave/settings.json` (snake_case names; None removes the key).

    Every other key and the key order are kept. Raises ValueError for an invalid value, and
    SettingsFileError if the existing file is not a JSON object (it is not overwritten).
    Returns the file's new content.
    """
    target = paths.user_settings
    label = display_path(target, paths.project_root, paths.home)
    changes = dict(_iter_updates(updates))
    for key, value in changes.items():
        if value is not None:
            problem = key_problem(label, {key: value})
            if problem is not None:
                raise ValueError(problem)
    result: dict[str, Any] = {}

    def update(text: str | None) -> str:
        data: Any = {}
        if text is not None and text.strip():
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise SettingsFileError(
                    f"{label} is not valid JSON (line {exc.lineno} column {exc.colno}: "
                    f"{exc.msg}); fix or remove it before saving settings"
                ) from exc
            if not isinstance(data, dict):
                raise SettingsFileError(f"{label} must contain a JSON object; not overwriting it")
        for key, value in changes.items():
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        result.update(data)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    locked_update(target, update)
    return result
