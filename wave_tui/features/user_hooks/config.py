"""The `hooks` key of the settings files: parsed into hook commands, concatenated across files.

Written against a list of settings *layers* — `(path, scope, data)` of each parsed file — so it
does not depend on the settings store's internals. `live_layers` gives such a list for a store
that has `layers()`, and reads the three files itself (cached by stat) for one that has not.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.user_hooks.matching import matcher_problem, matcher_selects
from wave_tui.permissions.rules import PermissionRule

HookEvent = Literal[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PermissionRequest",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "WorktreeCreate",
    "WorktreeRemove",
    "CwdChanged",
]
HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
TOOL_EVENTS: frozenset[HookEvent] = frozenset({"PreToolUse", "PostToolUse", "PermissionRequest"})
Scope = Literal["user", "project", "local"]
DEFAULT_TIMEOUT_S = 600.0


@record
class Layer:
    """One parsed settings file (the shape of `SettingsStore.layers()` entries)."""

    path: Path
    scope: Scope
    data: Mapping[str, Any]
    env: tuple[tuple[str, str], ...] = ()  # added to each of its hooks' environment (plugins)


@record
class HookSpec:
    event: HookEvent
    matcher: str  # "" matches every tool (and is the only value for non-tool events)
    command: str
    timeout_s: float
    run_async: bool
    source: Path
    scope: Scope
    env: tuple[tuple[str, str], ...] = ()
    condition: str = ""  # `if`: a permission-rule pattern the call must match ("" = every call)

    @property
    def from_project(self) -> bool:
        return self.scope != "user"

    # req: HK2
    def matches(self, tool_name: str | None) -> bool:
        return tool_name is None or matcher_selects(self.matcher, tool_name)


@record
class HookConfig:
    hooks: tuple[HookSpec, ...] = ()
    problems: tuple[str, ...] = ()

    def for_event(self, event: HookEvent, tool_name: str | None = None) -> list[HookSpec]:
        return [h for h in self.hooks if h.event == event and h.matches(tool_name)]


def parse_layers(layers: Sequence[Layer], label: Callable[[Path], str] = str) -> HookConfig:
    """Every file's `hooks`, in file order (user, project, local): concatenated, never overridden."""
    # req: HK1
    specs: list[HookSpec] = []
    problems: list[str] = []
    for layer in layers:
        raw = layer.data.get("hooks")
        if raw is None:
            continue
        where = label(layer.path)
        if not isinstance(raw, dict):
            problems.append(f"{where}: hooks: must be an object of event names")
            continue
        for event, groups in raw.items():
            if event not in HOOK_EVENTS:
                problems.append(f"{where}: hooks.{event}: unknown hook event")
                continue
            if not isinstance(groups, list):
                problems.append(f"{where}: hooks.{event}: must be a list")
                continue
            for index, group in enumerate(groups):
                specs.extend(
                    _group(event, group, layer, f"{where}: hooks.{event}[{index}]", problems)
                )
    return HookConfig(tuple(specs), tuple(problems))


def _group(
    event: HookEvent, group: Any, layer: Layer, where: str, problems: list[str]
) -> list[HookSpec]:
    if not isinstance(group, dict):
        problems.append(f"{where}: must be an object with `hooks`")
        return []
    matcher = group.get("matcher") or ""
    if not isinstance(matcher, str):
        problems.append(f"{where}.matcher: must be a string")
        return []
    problem = matcher_problem(matcher) if event in TOOL_EVENTS else None
    if problem is not None:
        problems.append(f"{where}.matcher: {problem}")
    entries = group.get("hooks")
    if not isinstance(entries, list):
        problems.append(f"{where}.hooks: must be a list")
        return []
    out: list[HookSpec] = []
    for i, entry in enumerate(entries):
        spot = f"{where}.hooks[{i}]"
        if not isinstance(entry, dict) or entry.get("type", "command") != "command":
            problems.append(f'{spot}: only {{"type": "command", "command": …}} is supported')
            continue
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            problems.append(f"{spot}.command: must be a non-empty string")
            continue
        timeout = entry.get("timeout", DEFAULT_TIMEOUT_S)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            problems.append(f"{spot}.timeout: must be a positive number of seconds; using 600")
            timeout = DEFAULT_TIMEOUT_S
        run_async = entry.get("async", False) is True
        condition = _condition(entry.get("if"), event, f"{spot}.if", problems)
        if condition is None:
            continue
        out.append(
            HookSpec(
                event,
                matcher if event in TOOL_EVENTS else "",
                command,
                float(timeout),
                run_async,
                layer.path,
                layer.scope,
                layer.env,
                condition,
            )
        )
    return out


# req: PH2
def _condition(raw: Any, event: HookEvent, where: str, problems: list[str]) -> str | None:
    """A hook's `if`: "" when absent, None (the hook is left out, said once) when unusable."""
    if raw is None or raw == "":
        return ""
    if not isinstance(raw, str) or PermissionRule.parse(raw) is None:
        problems.append(f"{where}: must be a permission rule such as `Bash(git commit:*)`")
        return None
    if event not in TOOL_EVENTS:
        problems.append(f"{where}: only tool events filter on `if`; the hook is left out")
        return None
    return raw.strip()


_Signature = tuple[int, int] | None


def _signature(path: Path) -> _Signature:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


class FileLayers:
    """The three settings files read as raw layers, re-read only when a file's stat changed.

    Stand-in for `SettingsStore.layers()` (same shape) where the store does not offer it."""

    def __init__(self, paths: WavePaths) -> None:
        self._files: list[tuple[Path, Scope]] = [
            (paths.user_settings, "user"),
            (paths.project_settings, "project"),
            (paths.local_settings, "local"),
        ]
        self._cache: dict[Path, tuple[_Signature, Mapping[str, Any] | None]] = {}

    def __call__(self) -> list[Layer]:
        layers = []
        for path, scope in self._files:
            sig = _signature(path)
            cached = self._cache.get(path)
            if cached is None or cached[0] != sig:
                cached = (sig, _read_json(path) if sig is not None else None)
                self._cache[path] = cached
            if cached[1] is not None:
                layers.append(Layer(path, scope, cached[1]))
        return layers


def _read_json(path: Path) -> Mapping[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None  # the settings store names a broken file; hooks just see no layer
    return data if isinstance(data, dict) else None


def live_layers(store: object, paths: WavePaths) -> Callable[[], list[Layer]]:
    """A function giving the current layers: the store's own `layers()` when it has one."""
    own = getattr(store, "layers", None)
    if callable(own):

        def from_store() -> list[Layer]:
            out = []
            for item in own():
                path, scope, data = (
                    (item.path, item.scope, item.data) if hasattr(item, "path") else item
                )
                out.append(Layer(Path(path), scope, data))
            return out

        return from_store
    return FileLayers(paths)
