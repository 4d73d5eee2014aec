"""Where settings values come from: the three JSON files and the environment (the real one, and
the settings files' `env` blocks), each as a dict of field values, merged by precedence.

Every value is validated against the schema key by key before it reaches a source, so one bad
value is one problem line (file, key, problem) and never discards its siblings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from wave_tui.config.paths import WavePaths, display_path
from wave_tui.config.records import record
from wave_tui.config.schema import (
    AUTO_MEMORY_KEYS,
    ENV_AUTO_MEMORY_FREQUENCY,
    ENV_DISABLE_AUTO_MEMORY,
    ENV_FIELDS,
    FILE_KEYS,
    FREQUENCY_RULE,
    SettingsSchema,
)

SettingsScope = Literal["user", "project", "local"]
SCOPES: tuple[SettingsScope, ...] = ("user", "project", "local")
# Deeper than any real settings file; far below the interpreter's recursion limit (X9).
MAX_SETTINGS_DEPTH = 64
# Validated per entry, so one bad model or env value does not discard its siblings.
_PER_ENTRY_KEYS = ("models", "env", "permissions")
# Keys the contract names for features that read them from the files themselves or are not
# built yet: a settings file may hold them without a warning. Every other key outside the
# schema (a misspelling, another tool's setting) is named once per file.
CONTRACT_KEYS = frozenset(
    {
        "$schema",  # an editor's JSON-schema hint
        "enabledPlugins",
        "extraKnownMarketplaces",
        "lspServers",
        "worktree",
    }
)


@record(slots=True)
class SettingsLayer:
    """One settings file that parsed: its valid keys as written (camelCase, unknown keys kept)."""

    path: Path
    scope: SettingsScope
    data: Mapping[str, Any]


# -- problem lines ----------------------------------------------------------------------------


def show_value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def describe_error(err: Any) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind in ("string_type",):
        return "must be a string"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return "must be an integer"
    if kind in ("float_type", "float_parsing"):
        return "must be a number"
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


def key_problem(label: str, raw: dict[str, Any]) -> str | None:
    """One line for the first thing wrong with `raw` (a one-key settings object), if any."""
    try:
        SettingsSchema.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(part) for part in err["loc"])
        rule = FREQUENCY_RULE if err["loc"][:1] == ("autoMemoryFrequency",) else describe_error(err)
        return f"{label}: {loc}: {rule} (got {show_value(err['input'])})"
    return None


# -- one settings file ------------------------------------------------------------------------


def unknown_keys_problem(label: str, data: Mapping[str, Any]) -> str | None:
    """One line naming the keys of one settings file that wave does not know (kept, unused)."""
    unknown = [key for key in data if key not in FILE_KEYS and key not in CONTRACT_KEYS]
    if not unknown:
        return None
    import difflib  # only when a file has an unknown key

    known = [*FILE_KEYS, *CONTRACT_KEYS]
    named = []
    for key in unknown:
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
        named.append(f"{key} (did you mean {close[0]}?)" if close else key)
    what = "unknown key" if len(named) == 1 else "unknown keys"
    return f"{label}: {what} {', '.join(named)}; ignored"


def validate_raw(
    label: str, data: dict[str, Any], previous: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Keep the valid keys of `data`; a bad key keeps its last valid value from `previous`.
    Unknown keys are kept (features may read them from the layers) and named in one line."""
    valid: dict[str, Any] = {}
    unknown = unknown_keys_problem(label, data)
    problems: list[str] = [] if unknown is None else [unknown]
    for key, value in data.items():
        if key not in FILE_KEYS:
            valid[key] = value
        elif value is None:
            continue
        elif key in _PER_ENTRY_KEYS and isinstance(value, dict):
            before = previous.get(key)
            before = before if isinstance(before, dict) else {}
            entries: dict[str, Any] = {}
            for name, entry in value.items():
                problem = key_problem(label, {key: {name: entry}})
                if problem is None:
                    entries[name] = entry
                else:
                    problems.append(problem)
                    if name in before:
                        entries[name] = before[name]
            valid[key] = entries
        else:
            problem = key_problem(label, {key: value})
            if problem is None:
                valid[key] = value
            else:
                problems.append(problem)
                if key in previous:
                    valid[key] = previous[key]
    return valid, problems


def nesting_depth(value: Any) -> int:
    """How deeply `value` nests (iteratively: the input may be deeper than the stack)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_SETTINGS_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


# req: X9
def _not_json(constant: str) -> Any:
    """Python's json reads NaN and Infinity; JSON has neither (an infinite timeout waits forever)."""
    raise ValueError(f"{constant} is not a JSON value")


# req: X9
def parse_settings_file(
    path: Path, label: str, previous: dict[str, Any]
) -> tuple[dict[str, Any] | None, list[str]]:
    """(valid values, problems) for one file; None when it does not exist.

    Content that cannot be used at all keeps `previous` whole (X9: whatever the reason)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, []
    except (OSError, UnicodeDecodeError) as exc:
        return previous, [f"{label}: cannot read: {exc}"]
    if not text.strip():
        return {}, []
    try:
        data = json.loads(text, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        return previous, [
            f"{label}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ]
    except RecursionError:
        return previous, [f"{label}: nested too deeply to read; file ignored"]
    except ValueError as exc:
        # e.g. an integer longer than the interpreter converts
        return previous, [f"{label}: cannot parse: {str(exc)[:100]}; file ignored"]
    if not isinstance(data, dict):
        return previous, [f"{label}: must contain a JSON object (got {type(data).__name__})"]
    if nesting_depth(data) > MAX_SETTINGS_DEPTH:
        return previous, [f"{label}: nested deeper than {MAX_SETTINGS_DEPTH} levels; file ignored"]
    return validate_raw(label, data, previous)


# -- merging the files ------------------------------------------------------------------------


def _deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def merge_raw(layers: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge validated file contents, lowest precedence first (permission lists concatenate)."""
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


# req: S6
def file_contributions(
    layers: list[SettingsLayer], paths: WavePaths, problems: list[str]
) -> dict[str, Any]:
    """The merged raw file contents. S6: only the user file sets the auto memory keys."""
    contents: list[Mapping[str, Any]] = []
    for layer in layers:
        data = dict(layer.data)
        if layer.scope != "user":
            for key in AUTO_MEMORY_KEYS:
                if data.pop(key, None) is not None:
                    problems.append(
                        f"{display_path(layer.path, paths.project_root, paths.home)}: {key}: ignored here; "
                        "only ~/.wave/settings.json sets auto memory"
                    )
        contents.append(data)
    return merge_raw(contents)


# -- the sources, highest precedence first -----------------------------------------------------


def by_precedence(sources: list[dict[str, Any]]) -> dict[str, Any]:
    """One dict of field values from `sources`, highest precedence first: a higher source's value
    wins, objects merge key by key (what pydantic-settings did with its sources, minus the
    import and a second schema)."""
    merged: dict[str, Any] = {}
    for values in reversed(sources):
        merged = _deep_merge(merged, values)
    return merged


def files_source(merged: Mapping[str, Any]) -> dict[str, Any]:
    """The settings-file keys of the merged files (unknown keys stay out of the schema)."""
    return {FILE_KEYS[key]: value for key, value in merged.items() if key in FILE_KEYS}


def env_source(
    environ: Mapping[str, str], label: Callable[[str], str], problems: list[str]
) -> dict[str, Any]:
    """The WAVE_* variables of `environ`, each validated alone; a bad one is reported, skipped."""
    values: dict[str, Any] = {}
    for name, field_name in ENV_FIELDS.items():
        raw = environ.get(name)
        if not raw:
            continue
        try:
            SettingsSchema.model_validate({field_name: raw})
        except ValidationError as exc:
            err = exc.errors()[0]
            rule = FREQUENCY_RULE if name == ENV_AUTO_MEMORY_FREQUENCY else describe_error(err)
            problems.append(f"{label(name)}: {rule} (got {show_value(raw)})")
            continue
        values[field_name] = raw
    return values


# req: S6
def settings_env_block(merged: Mapping[str, Any], user: Mapping[str, Any]) -> dict[str, str]:
    """The `env` entries that may supply WAVE_* defaults. S6: auto memory ones from the user file."""
    block = merged.get("env")
    combined = dict(block) if isinstance(block, Mapping) else {}
    user_env = user.get("env")
    user_env = user_env if isinstance(user_env, Mapping) else {}
    for name in (ENV_DISABLE_AUTO_MEMORY, ENV_AUTO_MEMORY_FREQUENCY):
        combined.pop(name, None)
        if name in user_env:
            combined[name] = user_env[name]
    return combined
