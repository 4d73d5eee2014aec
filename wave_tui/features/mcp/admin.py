"""`wave mcp list|get|add|remove`: MCP servers read from, and written to, the right file.

Scopes (contract, "Clarifications (third round)"): `local` is `.wave/settings.local.json` (the
default of `add`), `project` is `.mcp.json` (committed with the project), `user` is
`~/.wave/settings.json`. A write is a locked read-modify-write with an atomic replace; every other
key of the file, and its other servers, are kept. A new entry is checked by the same parser that
loads it, so `add` never writes what a session would then skip.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.fileio import locked_update
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import SettingsStore
from wave_tui.mcp.config import (
    MCP_JSON_SCOPE,
    Layer,
    McpConfig,
    ServerConfig,
    load_servers,
    read_mcp_json,
)

AddScope = Literal["local", "project", "user"]
ADD_SCOPES: tuple[AddScope, ...] = ("local", "project", "user")
Transport = Literal["stdio", "http", "sse"]


class McpAdminError(ValueError):
    """A request that cannot be carried out; the message is its one line."""


@record
class ServerEntry:
    """One configured server as `wave mcp list/get` shows it."""

    name: str
    scope: str  # "local", "project" (.mcp.json), "project-settings", "user"
    file: Path
    config: ServerConfig
    raw: Mapping[str, Any]


def scope_file(paths: WavePaths, scope: AddScope) -> Path:  # req: MO6
    """The file `--scope` writes."""
    if scope == "project":
        return paths.project_mcp_json
    if scope == "user":
        return paths.user_settings
    return paths.local_settings


def _scope_label(scope: str) -> str:
    return {MCP_JSON_SCOPE: "project", "project": "project-settings"}.get(scope, scope)


def _layers(paths: WavePaths, environ: Mapping[str, str]) -> tuple[list[Layer], list[str]]:
    layer, problem = read_mcp_json(paths.project_mcp_json)
    layers: list[Layer] = [layer] if layer is not None else []
    store = SettingsStore(paths, environ)
    layers += [(s.path, s.scope, s.data) for s in store.layers()]
    return layers, [problem] if problem else []


def configured(  # req: MO6
    paths: WavePaths, environ: Mapping[str, str] | None = None
) -> tuple[list[ServerEntry], list[str]]:
    """Every configured server (the one in force per name: later layers win) and the problems."""
    env = os.environ if environ is None else environ
    layers, problems = _layers(paths, env)
    config: McpConfig = load_servers(layers, env)
    raws = {
        (path, name): entry
        for path, _scope, data in layers
        if isinstance(data.get("mcpServers"), dict)
        for name, entry in data["mcpServers"].items()
    }
    entries = [
        ServerEntry(
            s.name, _scope_label(s.scope), s.source, s, dict(raws.get((s.source, s.name), {}))
        )
        for s in config.servers
    ]
    return entries, [*problems, *config.problems]


def find(paths: WavePaths, name: str, environ: Mapping[str, str] | None = None) -> ServerEntry:
    entries, _problems = configured(paths, environ)
    for entry in entries:
        if entry.name == name:
            return entry
    known = ", ".join(e.name for e in entries) or "none"
    raise McpAdminError(f"no MCP server {name!r} (configured: {known})")


def parse_pairs(items: Sequence[str], sep: str, what: str) -> dict[str, str]:
    """`KEY=VALUE` (env) or `Name: value` (headers) into a dict; a bad item is one line."""
    pairs: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            raise McpAdminError(f"{what} must look like KEY{sep}VALUE, got {item!r}")
        pairs[key.strip()] = value.strip() if sep == ":" else value
    return pairs


def new_entry(  # req: MO6
    transport: Transport,
    target: Sequence[str],
    env: Mapping[str, str],
    headers: Mapping[str, str],
) -> dict[str, Any]:
    """The JSON entry for `add`: stdio from `-- CMD ARGS`, http/sse from `URL`."""
    if transport == "stdio":
        if not target:
            raise McpAdminError("a stdio server needs its command: wave mcp add NAME -- CMD ARGS")
        if headers:
            raise McpAdminError("-H is for HTTP servers (--transport http)")
        entry: dict[str, Any] = {"command": target[0], "args": list(target[1:])}
        if env:
            entry["env"] = dict(env)
        return entry
    if len(target) != 1:
        raise McpAdminError(
            f"an {transport} server takes one URL: wave mcp add --transport {transport} NAME URL"
        )
    if env:
        raise McpAdminError("-e is for stdio servers (wave mcp add NAME -e KEY=VALUE -- CMD)")
    entry = {"type": transport, "url": target[0]}
    if headers:
        entry["headers"] = dict(headers)
    return entry


def _edit_servers(path: Path, change: Any) -> None:
    """Read-modify-write `mcpServers` of one JSON file; `change(servers)` edits it in place."""

    def update(text: str | None) -> str:
        data: Any = {}
        if text is not None and text.strip():
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise McpAdminError(
                    f"{path} is not valid JSON (line {exc.lineno}): {exc.msg}; not changed"
                ) from exc
            if not isinstance(data, dict):
                raise McpAdminError(f"{path} must contain a JSON object; not changed")
        servers = data.setdefault("mcpServers", {})
        if not isinstance(servers, dict):
            raise McpAdminError(f"{path}: mcpServers must be an object; not changed")
        change(servers)
        if not servers:
            del data["mcpServers"]
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    locked_update(path, update)


def add_server(  # req: MO6
    paths: WavePaths,
    name: str,
    entry: Mapping[str, Any],
    scope: AddScope,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """Write `entry` as server `name` into the scope's file; returns the file."""
    path = scope_file(paths, scope)
    env = os.environ if environ is None else environ
    checked = load_servers([(path, scope, {"mcpServers": {name: dict(entry)}})], env)
    if checked.problems:
        reason = checked.problems[0].split(" skipped: ", 1)[-1]
        raise McpAdminError(f"cannot add MCP server {name!r}: {reason}")

    def change(servers: dict[str, Any]) -> None:
        if name in servers:
            raise McpAdminError(
                f"MCP server {name!r} already exists in the {scope} scope ({path}); "
                f"wave mcp remove {name} --scope {scope} first"
            )
        servers[name] = dict(entry)

    _edit_servers(path, change)
    return path


def _holders(paths: WavePaths, name: str) -> list[tuple[str, Path]]:
    """The scopes whose file has a server `name` (whether or not its entry is valid)."""
    files: list[tuple[str, Path]] = [
        ("local", paths.local_settings),
        ("project", paths.project_mcp_json),
        ("project-settings", paths.project_settings),
        ("user", paths.user_settings),
    ]
    found = []
    for scope, path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        servers = data.get("mcpServers") if isinstance(data, dict) else None
        if isinstance(servers, dict) and name in servers:
            found.append((scope, path))
    return found


# req: MO6
def remove_server(paths: WavePaths, name: str, scope: AddScope | None) -> tuple[str, Path]:
    """Remove server `name` from the scope's file (no scope: the one file that has it)."""
    holders = _holders(paths, name)
    if scope is not None:
        holders = [(s, p) for s, p in holders if s == scope]
        if not holders:
            raise McpAdminError(f"no MCP server {name!r} in the {scope} scope")
    if not holders:
        raise McpAdminError(f"no MCP server {name!r} in any scope")
    if len(holders) > 1:
        where = ", ".join(s for s, _ in holders)
        raise McpAdminError(
            f"MCP server {name!r} is in several scopes ({where}); name one with --scope"
        )
    ((found_scope, path),) = holders

    def change(servers: dict[str, Any]) -> None:
        servers.pop(name, None)

    _edit_servers(path, change)
    return found_scope, path
