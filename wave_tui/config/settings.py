"""Settings: the three settings files, the WAVE_* environment, and the merged result.

Precedence: user < project < local settings file (later wins; objects merged deeply,
`permissions.allow/deny` concatenated), except auto memory (S6), which only the user file sets,
then `WAVE_DISABLE_AUTO_MEMORY` / `WAVE_AUTO_MEMORY_FREQUENCY`, then the defaults.

`SettingsStore.current()` is the live-reload point: it re-reads a file only when its stat changed.
Nothing here raises on bad input; each problem becomes one line in `EffectiveSettings.problems`.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel
from pydantic.types import StrictBool, StrictInt, StrictStr
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings.sources.utils import parse_env_vars

from wave_tui.config.fileio import locked_update
from wave_tui.config.paths import WavePaths

DEFAULT_MAX_INPUT_TOKENS = 128_000
DEFAULT_MAX_OUTPUT_TOKENS = 8192
DEFAULT_CLEANUP_PERIOD_DAYS = 30
DEFAULT_AUTO_MEMORY_ENABLED = True
DEFAULT_AUTO_MEMORY_FREQUENCY = 1
AUTO_MEMORY_FREQUENCY_MIN = 1
AUTO_MEMORY_FREQUENCY_MAX = 100

AUTO_MEMORY_KEYS = ("autoMemoryEnabled", "autoMemoryFrequency")
ENV_DISABLE_AUTO_MEMORY = "WAVE_DISABLE_AUTO_MEMORY"
ENV_AUTO_MEMORY_FREQUENCY = "WAVE_AUTO_MEMORY_FREQUENCY"
_FREQUENCY_RULE = (
    f"must be an integer from {AUTO_MEMORY_FREQUENCY_MIN} to {AUTO_MEMORY_FREQUENCY_MAX}"
)

PermissionMode = Literal["default", "acceptEdits", "bypassPermissions", "plan"]
FrequencyInt = Annotated[
    StrictInt, Field(ge=AUTO_MEMORY_FREQUENCY_MIN, le=AUTO_MEMORY_FREQUENCY_MAX)
]


# -- one settings file ----------------------------------------------------------------------


class _CamelModel(BaseModel):
    """camelCase in JSON, snake_case in Python; unknown keys kept (other features read them)."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        frozen=True,
    )


class ModelCapabilities(_CamelModel):
    prompt_caching: StrictBool = False
    vision: StrictBool = True


class ModelConfig(_CamelModel):
    """`models.<name>` in a settings file."""

    capabilities: ModelCapabilities = Field(default_factory=ModelCapabilities)
    max_input_tokens: Annotated[StrictInt, Field(gt=0)] | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class PermissionsConfig(_CamelModel):
    allow: list[StrictStr] = Field(default_factory=list)
    deny: list[StrictStr] = Field(default_factory=list)
    default_mode: PermissionMode | None = None


class SettingsFile(_CamelModel):
    """The known keys of one settings file (`~/.wave/settings.json` and the project ones)."""

    language: StrictStr | None = None
    model: StrictStr | None = None
    fast_model: StrictStr | None = None
    auto_memory_enabled: StrictBool | None = None
    auto_memory_frequency: FrequencyInt | None = None
    models: dict[str, ModelConfig] = Field(default_factory=dict)
    permissions: PermissionsConfig = Field(default_factory=PermissionsConfig)
    env: dict[str, StrictStr] = Field(default_factory=dict)
    cleanup_period_days: Annotated[StrictInt, Field(ge=0)] | None = None
    local: StrictBool | None = None
    local_model: StrictStr | None = None


_KNOWN_KEYS = {info.alias or name: name for name, info in SettingsFile.model_fields.items()}
# Validated per entry, so one bad model or env value does not discard its siblings.
_PER_ENTRY_KEYS = ("models", "env", "permissions")


# -- the environment ------------------------------------------------------------------------

_ENVIRON: ContextVar[Mapping[str, str]] = ContextVar("wave_settings_environ")


class _MappingEnvSource(EnvSettingsSource):
    """Reads an explicit mapping instead of os.environ, so callers and tests control it."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(
            _ENVIRON.get(), self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str
        )


_TRUE_WORDS = frozenset({"1", "true", "yes"})
_FALSE_WORDS = frozenset({"0", "false", "no"})


class WaveEnv(BaseSettings):
    """The WAVE_* variables (see `read_env`)."""

    model_config = SettingsConfigDict(
        env_prefix="WAVE_", case_sensitive=False, env_ignore_empty=True, extra="ignore"
    )

    model: str | None = None
    fast_model: str | None = None
    api_key: str | None = None
    base_url: str | None = None
    custom_headers: Annotated[dict[str, str] | None, NoDecode] = None
    max_input_tokens: Annotated[int, Field(gt=0)] | None = None
    max_output_tokens: Annotated[int, Field(gt=0)] | None = None
    disable_auto_memory: Annotated[bool | None, NoDecode] = None
    auto_memory_frequency: FrequencyInt | None = None

    @field_validator("custom_headers", mode="before")
    @classmethod
    def _headers_json(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError("not valid JSON") from exc
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ValueError("must be a JSON object of string values")
        return value

    @field_validator("disable_auto_memory", mode="before")
    @classmethod
    def _yes_no(cls, value: Any) -> Any:
        if isinstance(value, str):
            word = value.strip().lower()
            if word in _TRUE_WORDS:
                return True
            if word in _FALSE_WORDS:
                return False
            raise ValueError("must be 1/true/yes or 0/false/no")
        return value

    @field_validator("auto_memory_frequency", mode="before")
    @classmethod
    def _frequency_int(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError as exc:
                raise ValueError(_FREQUENCY_RULE) from exc
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (_MappingEnvSource(settings_cls),)


def _env_var(field_name: str) -> str:
    return f"WAVE_{field_name.upper()}"


def read_env(
    environ: Mapping[str, str], describe_origin: Callable[[str], str] | None = None
) -> tuple[WaveEnv, list[str]]:
    """Parse the WAVE_* variables of `environ`; a bad value is reported and ignored."""
    wave_vars = {k: v for k, v in environ.items() if k.startswith("WAVE_")}
    problems: list[str] = []
    for _ in range(len(WaveEnv.model_fields) + 1):
        token = _ENVIRON.set(wave_vars)
        try:
            return WaveEnv(), problems
        except ValidationError as exc:
            for err in exc.errors():
                name = _env_var(str(err["loc"][0])) if err["loc"] else "WAVE_*"
                if name not in wave_vars:
                    continue
                label = describe_origin(name) if describe_origin else name
                rule = _FREQUENCY_RULE if name == ENV_AUTO_MEMORY_FREQUENCY else _describe(err)
                problems.append(f"{label}: {rule} (got {_show(wave_vars[name])})")
                wave_vars = {k: v for k, v in wave_vars.items() if k != name}
        finally:
            _ENVIRON.reset(token)
    return WaveEnv.model_construct(), problems


# -- the result -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EffectivePermissions:
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    default_mode: PermissionMode | None = None


@dataclass(frozen=True, slots=True)
class EffectiveSettings:
    """Everything in force for one turn. Build a new one rather than changing this."""

    model: str | None = None
    fast_model: str | None = None
    api_key: str | None = None
    base_url: str | None = None
    custom_headers: dict[str, str] = field(default_factory=dict)
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    language: str | None = None
    auto_memory_enabled: bool = DEFAULT_AUTO_MEMORY_ENABLED
    auto_memory_frequency: int = DEFAULT_AUTO_MEMORY_FREQUENCY
    models: dict[str, ModelConfig] = field(default_factory=dict)
    permissions: EffectivePermissions = field(default_factory=EffectivePermissions)
    env: dict[str, str] = field(default_factory=dict)
    cleanup_period_days: int = DEFAULT_CLEANUP_PERIOD_DAYS
    local: bool | None = None
    local_model: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def model_config_for(self, name: str | None) -> ModelConfig:
        return self.models.get(name or "") or ModelConfig()

    def prompt_caching_for(self, name: str | None) -> bool:
        return self.model_config_for(name).capabilities.prompt_caching


def resolve_max_input_tokens(
    settings: EffectiveSettings, model: str | None, override: int | None = None
) -> int:
    """override > `models.<model>.maxInputTokens` > WAVE_MAX_INPUT_TOKENS > default."""
    if override is not None:
        return override
    per_model = settings.model_config_for(model).max_input_tokens
    if per_model is not None:
        return per_model
    if settings.max_input_tokens is not None:
        return settings.max_input_tokens
    return DEFAULT_MAX_INPUT_TOKENS


def resolve_max_output_tokens(
    settings: EffectiveSettings, model: str | None = None, override: int | None = None
) -> int:
    """override > WAVE_MAX_OUTPUT_TOKENS > default (no per-model key exists for output)."""
    if override is not None:
        return override
    if settings.max_output_tokens is not None:
        return settings.max_output_tokens
    return DEFAULT_MAX_OUTPUT_TOKENS


# -- validating and merging raw file contents -----------------------------------------------


def display_path(path: Path, paths: WavePaths) -> str:
    """`~/...` under home, relative under the project root, else absolute."""
    for base, prefix in ((paths.project_root, ""), (paths.home, "~/")):
        with contextlib.suppress(ValueError):
            return prefix + path.relative_to(base).as_posix()
    return str(path)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(err: Any) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind in ("string_type",):
        return "must be a string"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return "must be an integer"
    if kind in ("bool_type", "bool_parsing"):
        return "must be true or false"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "must be an object"
    if kind == "list_type":
        return "must be a list"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected', '')}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "greater_than":
        return f"must be greater than {ctx.get('gt')}"
    if kind == "less_than_equal":
        return f"must be at most {ctx.get('le')}"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    return str(err["msg"])


def _key_problem(label: str, raw: dict[str, Any]) -> str | None:
    """One line for the first thing wrong with `raw` (a one-key settings object), if any."""
    try:
        SettingsFile.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(part) for part in err["loc"])
        rule = _FREQUENCY_RULE if err["loc"][:1] == ("autoMemoryFrequency",) else _describe(err)
        return f"{label}: {loc}: {rule} (got {_show(err['input'])})"
    return None


def validate_raw(
    label: str, data: dict[str, Any], previous: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Keep the valid keys of `data`; a bad key keeps its last valid value from `previous`."""
    valid: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in data.items():
        if key not in _KNOWN_KEYS:
            valid[key] = value
        elif value is None:
            continue
        elif key in _PER_ENTRY_KEYS and isinstance(value, dict):
            before = previous.get(key)
            before = before if isinstance(before, dict) else {}
            entries: dict[str, Any] = {}
            for name, entry in value.items():
                problem = _key_problem(label, {key: {name: entry}})
                if problem is None:
                    entries[name] = entry
                else:
                    problems.append(problem)
                    if name in before:
                        entries[name] = before[name]
            valid[key] = entries
        else:
            problem = _key_problem(label, {key: value})
            if problem is None:
                valid[key] = value
            else:
                problems.append(problem)
                if key in previous:
                    valid[key] = previous[key]
    return valid, problems


def _deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def merge_raw(layers: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge validated file contents, lowest precedence first."""
    merged: dict[str, Any] = {}
    for layer in layers:
        perms_before = merged.get("permissions") or {}
        merged = _deep_merge(merged, layer)
        perms_now = layer.get("permissions")
        if isinstance(perms_now, Mapping):
            combined = dict(merged["permissions"])
            for key in ("allow", "deny"):
                joined = list(perms_before.get(key, [])) + list(perms_now.get(key, []))
                combined[key] = list(dict.fromkeys(joined))
            merged["permissions"] = combined
    return merged


def build_effective(
    user: Mapping[str, Any],
    project_layers: list[Mapping[str, Any]],
    environ: Mapping[str, str],
    problems: list[str],
) -> EffectiveSettings:
    """The merged result. `user` is the user file; `project_layers` the project and local ones."""
    merged = merge_raw([user, *project_layers])
    for key in AUTO_MEMORY_KEYS:
        merged.pop(key, None)
    try:
        parsed = SettingsFile.model_validate(merged)
    except ValidationError as exc:  # each layer was valid, so this should not happen
        problems.append(f"settings: could not merge ({exc.error_count()} errors); using defaults")
        parsed = SettingsFile()

    user_env = user.get("env") if isinstance(user.get("env"), Mapping) else {}
    combined = {**parsed.env, **environ}
    # S6: a project file's `env` cannot switch auto memory either.
    for name in (ENV_DISABLE_AUTO_MEMORY, ENV_AUTO_MEMORY_FREQUENCY):
        combined.pop(name, None)
        source = environ if name in environ else user_env
        if name in source:
            combined[name] = source[name]

    def origin(name: str) -> str:
        return name if name in environ else f"settings env {name}"

    env, env_problems = read_env(combined, origin)
    problems.extend(env_problems)

    enabled = user.get("autoMemoryEnabled")
    if enabled is None:
        enabled = (
            not env.disable_auto_memory
            if env.disable_auto_memory is not None
            else DEFAULT_AUTO_MEMORY_ENABLED
        )
    frequency = user.get("autoMemoryFrequency")
    if frequency is None:
        frequency = env.auto_memory_frequency or DEFAULT_AUTO_MEMORY_FREQUENCY

    extras = {k: v for k, v in merged.items() if k not in _KNOWN_KEYS}
    return EffectiveSettings(
        # The real environment beats the files; a settings `model` beats a settings `env` entry.
        model=environ.get("WAVE_MODEL") or parsed.model or env.model,
        fast_model=environ.get("WAVE_FAST_MODEL") or parsed.fast_model or env.fast_model,
        api_key=env.api_key,
        base_url=env.base_url,
        custom_headers=dict(env.custom_headers or {}),
        max_input_tokens=env.max_input_tokens,
        max_output_tokens=env.max_output_tokens,
        language=parsed.language,
        auto_memory_enabled=bool(enabled),
        auto_memory_frequency=int(frequency),
        models=dict(parsed.models),
        permissions=EffectivePermissions(
            allow=tuple(parsed.permissions.allow),
            deny=tuple(parsed.permissions.deny),
            default_mode=parsed.permissions.default_mode,
        ),
        env=dict(parsed.env),
        cleanup_period_days=(
            parsed.cleanup_period_days
            if parsed.cleanup_period_days is not None
            else DEFAULT_CLEANUP_PERIOD_DAYS
        ),
        local=parsed.local,
        local_model=parsed.local_model,
        extras=extras,
        problems=tuple(dict.fromkeys(problems)),
    )


# -- the store ------------------------------------------------------------------------------

_Signature = tuple[int, int, int] | None  # (mtime_ns, size, inode), None when missing


def _signature(path: Path) -> _Signature:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass
class _FileState:
    signature: _Signature | Literal["unread"] = "unread"
    valid: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _parse_file(
    path: Path, label: str, previous: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """(valid values, problems) for one file. Unusable content keeps `previous` whole."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as exc:
        return previous, [f"{label}: cannot read: {exc}"]
    if not text.strip():
        return {}, []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return previous, [
            f"{label}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ]
    if not isinstance(data, dict):
        return previous, [f"{label}: must contain a JSON object (got {type(data).__name__})"]
    return validate_raw(label, data, previous)


class SettingsStore:
    """The three settings files plus the environment, reloaded whenever a file changes."""

    def __init__(
        self,
        paths: WavePaths,
        environ: Mapping[str, str] | None = None,
        on_problem: Callable[[str], None] | None = None,
    ) -> None:
        self.paths = paths
        self._environ = environ if environ is not None else os.environ
        self._files = list(paths.settings_files)
        self._states = [_FileState() for _ in self._files]
        self._lock = threading.RLock()
        self._problem_listeners: list[Callable[[str], None]] = [on_problem] if on_problem else []
        self._subscribers: list[Callable[[EffectiveSettings], None]] = []
        self._pending: list[str] = []
        self._last_failure: str | None = None
        self._effective = EffectiveSettings()
        self.refresh()

    @property
    def files(self) -> list[Path]:
        return list(self._files)

    def current(self) -> EffectiveSettings:
        """The settings in force now. Cheap when nothing changed (three stats); never raises."""
        self.refresh()
        return self._effective

    def new_problems(self) -> list[str]:
        """Problems that appeared since the last call (each reported once while it persists)."""
        with self._lock:
            pending, self._pending = self._pending, []
        return pending

    def on_problem(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call `callback` with each new problem line; returns a function that unregisters it."""
        self._problem_listeners.append(callback)
        return lambda: self._problem_listeners.remove(callback)

    def subscribe(self, callback: Callable[[EffectiveSettings], None]) -> Callable[[], None]:
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
        from wave_tui.config.live import watch_settings

        async for settings in watch_settings(
            self, debounce_ms=debounce_ms, stop_event=stop_event, force_polling=force_polling
        ):
            yield settings

    def refresh(self) -> bool:
        """Reload the files whose stat changed; True when the effective settings changed."""
        try:
            with self._lock:
                before = self._effective
                new_problems = self._reload_locked()
                after = self._effective
        except Exception as exc:  # the live-reload path must never take the agent down
            line = f"settings: reload failed: {exc!r}"
            before = after = None
            with self._lock:
                new_problems = [] if line == self._last_failure else [line]
                self._last_failure = line
                self._pending.extend(new_problems)
        for line in new_problems:
            for listener in list(self._problem_listeners):
                with contextlib.suppress(Exception):
                    listener(line)
        if after is not None and after != before:
            for subscriber in list(self._subscribers):
                with contextlib.suppress(Exception):
                    subscriber(after)
            return True
        return False

    def _reload_locked(self) -> list[str]:
        signatures = [_signature(path) for path in self._files]
        if all(st.signature == sig for st, sig in zip(self._states, signatures, strict=True)):
            return []
        for path, state, sig in zip(self._files, self._states, signatures, strict=True):
            if state.signature == sig:
                continue
            label = display_path(path, self.paths)
            state.valid, state.problems = _parse_file(path, label, state.valid)
            state.signature = sig
        user, *project = self._states
        problems = [line for state in self._states for line in state.problems]
        project_layers: list[Mapping[str, Any]] = []
        for path, state in zip(self._files[1:], project, strict=True):
            layer = dict(state.valid)
            for key in AUTO_MEMORY_KEYS:
                if layer.pop(key, None) is not None:
                    problems.append(
                        f"{display_path(path, self.paths)}: {key}: ignored here; "
                        "only ~/.wave/settings.json sets auto memory"
                    )
            project_layers.append(layer)
        previous = set(self._effective.problems)
        self._effective = build_effective(user.valid, project_layers, self._environ, problems)
        fresh = [line for line in self._effective.problems if line not in previous]
        self._pending.extend(fresh)
        return fresh


# -- writing the user file ------------------------------------------------------------------


class SettingsFileError(ValueError):
    """A settings file cannot be updated safely (its content is left untouched)."""


def _iter_updates(updates: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    aliases = {name: info.alias or name for name, info in SettingsFile.model_fields.items()}
    for name, value in updates.items():
        if name in aliases:
            yield aliases[name], value
        elif name in _KNOWN_KEYS:
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
    label = display_path(target, paths)
    changes = dict(_iter_updates(updates))
    for key, value in changes.items():
        if value is not None:
            problem = _key_problem(label, {key: value})
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
