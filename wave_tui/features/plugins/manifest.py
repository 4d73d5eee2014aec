"""One plugin folder read: its manifest and where each of its components lives.

A plugin is a folder with `.wave-plugin/plugin.json` or `.claude-plugin/plugin.json` (`name`,
`version`, `description`, and optionally `commands` / `agents` / `skills` paths, `hooks`,
`mcpServers` and `lspServers` as a path or inline). Defaults are Claude Code's: `commands/`,
`agents/`, `skills/<name>/SKILL.md`, `hooks/hooks.json`, `.mcp.json`, `.lsp.json`.
`${WAVE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_ROOT}` expand to the folder in every string of its
hook, MCP and LSP configs. A broken manifest or a bad path is one problem line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from wave_tui.config.records import record

MANIFEST_DIRS = (".wave-plugin", ".claude-plugin")  # wave's own layout first
MANIFEST_FILE = "plugin.json"
MARKETPLACE_FILE = "marketplace.json"
# A `"strict": false` market entry, kept in the installed copy: it is the plugin's manifest.
MARKET_ENTRY_FILE = ".wave-plugin/market-entry.json"
ROOT_VARIABLES = ("${WAVE_PLUGIN_ROOT}", "${CLAUDE_PLUGIN_ROOT}")
PLUGIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
MAX_MANIFEST_BYTES = 1_000_000


@record
class Plugin:
    """A plugin folder that loaded; its components' configs already expanded."""

    name: str
    version: str
    description: str
    root: Path
    command_dirs: tuple[Path, ...] = ()
    agent_dirs: tuple[Path, ...] = ()
    skill_dirs: tuple[Path, ...] = ()
    hooks: Mapping[str, Any] | None = None  # the `{"hooks": {...}}` object
    hooks_source: Path | None = None
    mcp_servers: Mapping[str, Any] | None = None  # `{NAME: {...}}`
    mcp_source: Path | None = None
    lsp_servers: Mapping[str, Any] | None = None  # `{NAME: {...}}`
    lsp_source: Path | None = None
    problems: tuple[str, ...] = field(default=())


class ManifestError(ValueError):
    """The folder is no plugin, or its manifest is broken: the message is the one line."""


def manifest_path(root: Path, filename: str = MANIFEST_FILE) -> Path | None:
    """`.wave-plugin/<file>` or `.claude-plugin/<file>` under `root`, whichever exists."""
    for folder in MANIFEST_DIRS:
        path = root / folder / filename
        if path.is_file():
            return path
    return None


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object from `path`, or ManifestError with one line saying what is wrong."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_MANIFEST_BYTES)
        data = json.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise ManifestError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    except (UnicodeDecodeError, RecursionError) as exc:
        raise ManifestError(f"{path}: not valid JSON ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{path}: not valid JSON (line {exc.lineno}): {exc.msg}") from exc
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: expected a JSON object")
    return data


# req: PG2
def expand_root(value: Any, root: Path) -> Any:
    """`value` with both root variables replaced by `root` in every string, at any depth."""
    if isinstance(value, str):
        for variable in ROOT_VARIABLES:
            value = value.replace(variable, str(root))
        return value
    if isinstance(value, list):
        return [expand_root(v, root) for v in value]
    if isinstance(value, dict):
        return {k: expand_root(v, root) for k, v in value.items()}
    return value


def write_market_entry(root: Path, entry: Mapping[str, Any]) -> None:
    """Keep a `"strict": false` market entry in the plugin's copy (blocking: call in a thread)."""
    from wave_tui.config.fileio import atomic_write_text

    path = root / MARKET_ENTRY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(dict(entry), indent=2) + "\n")


# req: PG1
# req: PH6
def load_plugin(root: Path, known_name: str | None = None) -> Plugin:
    """The plugin in `root`; ManifestError (one line) when its manifest is broken, or missing
    and no `known_name` is given (Claude Code's manifest is optional: a market entry or an
    install record names the plugin, and its components are found in the default places).

    A kept `"strict": false` market entry is the manifest (over the folder's own, if any): its
    `commands`, `agents` and `skills` lists are then all that loads of each, and its inline
    `hooks`, `mcpServers` and `lspServers` are the plugin's.
    A component that is missing or malformed is a problem line of its own; the rest loads."""
    path = manifest_path(root)
    entry_path = root / MARKET_ENTRY_FILE
    entry = read_json_object(entry_path) if entry_path.is_file() else None
    if path is None and known_name is None and entry is None:
        raise ManifestError(
            f"{root}: no plugin manifest (.wave-plugin/plugin.json or .claude-plugin/plugin.json)"
        )
    data = read_json_object(path) if path is not None else {"name": known_name}
    origins = dict.fromkeys(data, path)
    if entry is not None:
        data = {**data, **entry}
        origins.update(dict.fromkeys(entry, entry_path))
    name = data.get("name")
    if not isinstance(name, str) or not PLUGIN_NAME.match(name):
        raise ManifestError(f"{path}: `name` must be a name of letters, digits, '.', '-', '_'")
    problems: list[str] = []
    version = _text(data, "version")  # none: the market entry's, else the commit
    description = _text(data, "description")
    only = entry is not None  # the entry's lists replace the default folders
    return Plugin(
        name=name,
        version=version,
        description=description,
        root=root,
        command_dirs=_folders(root, data, "commands", problems, only),
        agent_dirs=_folders(root, data, "agents", problems, only),
        skill_dirs=_folders(root, data, "skills", problems, only),
        **_config(root, data, "hooks", "hooks/hooks.json", problems, origins.get("hooks")),
        **_config(root, data, "mcpServers", ".mcp.json", problems, origins.get("mcpServers")),
        **_config(root, data, "lspServers", ".lsp.json", problems, origins.get("lspServers")),
        problems=tuple(problems),
    )


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    return value.strip() if isinstance(value, str) else ""


def _inside(root: Path, relative: str, where: str, problems: list[str]) -> Path | None:
    """`root / relative` when it stays inside the plugin, else a problem line."""
    target = (root / relative).resolve()
    if not target.is_relative_to(root.resolve()):
        problems.append(f"{where}: {relative!r} leaves the plugin folder")
        return None
    return target


def _folders(
    root: Path, data: Mapping[str, Any], key: str, problems: list[str], only: bool
) -> tuple[Path, ...]:
    """The default folder (when it exists) and the manifest's extra ones (which must); with
    `only`, a listed key's paths alone (a `"strict": false` entry says all that loads)."""
    raw = data.get(key)
    listed_only = only and raw is not None
    found = [root / key] if (root / key).is_dir() and not listed_only else []
    if raw is None:
        return tuple(found)
    listed = [raw] if isinstance(raw, str) else raw
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        problems.append(f"{root.name}: `{key}` must be a path or a list of paths")
        return tuple(found)
    for relative in listed:
        target = _inside(root, relative, f"{root.name}: {key}", problems)
        if target is None:
            continue
        if not target.exists():
            problems.append(f"{root.name}: {key} folder {relative!r} is missing")
        elif target not in found:
            found.append(target)
    return tuple(found)


_CONFIG_FIELDS = {"hooks": "hooks", "mcpServers": "mcp", "lspServers": "lsp"}


def _config(
    root: Path,
    data: Mapping[str, Any],
    key: str,
    default: str,
    problems: list[str],
    origin: Path | None,
) -> dict[str, Any]:
    """`{<kind>: the expanded object, <kind>_source: its file}` for hooks, MCP or LSP (an
    inline object's file is the manifest, or market entry, `origin` it came from)."""
    kind = _CONFIG_FIELDS[key]
    field_name = "hooks" if kind == "hooks" else f"{kind}_servers"
    raw = data.get(key)
    source: Path | None
    obj: dict[str, Any]
    if isinstance(raw, dict):
        obj = raw
        source = origin
    else:
        if raw is not None and not isinstance(raw, str):
            problems.append(f"{root.name}: `{key}` must be a path or an object")
            return {}
        source = _inside(root, raw or default, f"{root.name}: {key}", problems)
        if source is None:
            return {}
        if not source.is_file():
            if raw is not None:
                problems.append(f"{root.name}: {key} file {raw!r} is missing")
            return {}
        try:
            obj = read_json_object(source)
        except ManifestError as exc:
            problems.append(str(exc))
            return {}
    shaped = _shape(kind, obj, source, problems)
    if shaped is None:
        return {}
    return {field_name: expand_root(shaped, root), f"{kind}_source": source}


def _shape(
    kind: str, obj: dict[str, Any], source: Path | None, problems: list[str]
) -> dict[str, Any] | None:
    """The part the project's loader reads: `{"hooks": …}` for hooks, servers by name else."""
    if kind == "hooks":
        # hooks.json is `{"description"?, "hooks": {EVENT: [...]}}`; the manifest's inline
        # `hooks` is the event object itself.
        events = obj.get("hooks", obj)
        if not isinstance(events, dict):
            problems.append(f"{source}: `hooks` must be an object of event names")
            return None
        return {"hooks": {k: v for k, v in events.items() if k != "description"}}
    servers = obj.get("mcpServers", obj) if kind == "mcp" else obj
    if not isinstance(servers, dict):
        problems.append(f"{source}: servers must be an object of servers by name")
        return None
    return servers
