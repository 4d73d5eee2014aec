"""The plugin files wave keeps: `~/.wave/plugins/known_marketplaces.json`, `installed_plugins.json`
and `enabledPlugins` in the three settings files — each read-modify-written under its lock and
replaced atomically, in Claude Code's shapes.

    known_marketplaces.json  {NAME: {"source": {"source": "git", "url": …} | {"source":
                              "directory", "path": …}, "installLocation": …, "lastUpdated": …}}
    installed_plugins.json   {"version": 2, "plugins": {"NAME@MARKET": [{"scope", "installPath",
                              "version", "installedAt", "lastUpdated", "projectPath"?,
                              "gitCommitSha"?}]}}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.fileio import locked_update
from wave_tui.config.paths import WavePaths, display_path
from wave_tui.config.records import record

Scope = Literal["user", "project", "local"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")
SourceKind = Literal["git", "directory"]
ENABLED_KEY = "enabledPlugins"
EXTRA_MARKETS_KEY = "extraKnownMarketplaces"
INSTALLED_VERSION = 2


class PluginError(Exception):
    """A plugin operation that cannot be done: the message is the one line the user sees."""


@record
class MarketSource:
    kind: SourceKind
    location: str  # a git URL, or a folder's absolute path

    def to_json(self) -> dict[str, str]:
        key = "url" if self.kind == "git" else "path"
        return {"source": self.kind, key: self.location}


@record
class KnownMarket:
    name: str
    source: MarketSource
    install_location: Path  # the folder holding its marketplace.json
    last_updated: str


@record
class Installed:
    plugin_id: str  # NAME@MARKET
    scope: Scope
    install_path: Path
    version: str
    installed_at: str
    project_path: str | None = None  # project and local installs: the project they are for
    git_commit: str | None = None

    @property
    def name(self) -> str:
        return self.plugin_id.rsplit("@", 1)[0]

    @property
    def market(self) -> str:
        return self.plugin_id.rsplit("@", 1)[1] if "@" in self.plugin_id else ""


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def source_of(raw: object) -> MarketSource | None:
    """Claude Code's `{"source": "git"|"github"|"url"|"directory", …}`, or None."""
    if not isinstance(raw, dict):
        return None
    kind = raw.get("source")
    if kind in ("git", "url") and isinstance(raw.get("url"), str):
        return MarketSource("git", raw["url"])
    if kind == "github" and isinstance(raw.get("repo"), str):
        return MarketSource("git", f"https://github.com/{raw['repo']}.git")
    if kind == "directory" and isinstance(raw.get("path"), str):
        return MarketSource("directory", raw["path"])
    return None


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _update_json(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    def update(text: str | None) -> str:
        try:
            data = json.loads(text) if text and text.strip() else {}
        except ValueError:
            data = {}  # a corrupt record file is rebuilt, never half-kept
        if not isinstance(data, dict):
            data = {}
        change(data)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    path.parent.mkdir(parents=True, exist_ok=True)
    locked_update(path, update)


# -- known marketplaces ---------------------------------------------------------------------
# req: PG6
def known_markets(paths: WavePaths) -> dict[str, KnownMarket]:
    found: dict[str, KnownMarket] = {}
    for name, entry in _load(paths.known_marketplaces_file).items():
        if not isinstance(entry, dict):
            continue
        source = source_of(entry.get("source"))
        location = entry.get("installLocation")
        if source is None or not isinstance(location, str):
            continue
        found[name] = KnownMarket(name, source, Path(location), str(entry.get("lastUpdated", "")))
    return found


def save_market(paths: WavePaths, market: KnownMarket) -> None:
    def change(data: dict[str, Any]) -> None:
        data[market.name] = {
            "source": market.source.to_json(),
            "installLocation": str(market.install_location),
            "lastUpdated": market.last_updated,
        }

    _update_json(paths.known_marketplaces_file, change)


def forget_market(paths: WavePaths, name: str) -> None:
    _update_json(paths.known_marketplaces_file, lambda data: data.pop(name, None))


# -- installed plugins ----------------------------------------------------------------------
def installed_plugins(paths: WavePaths) -> list[Installed]:
    plugins = _load(paths.installed_plugins_file).get("plugins")
    out: list[Installed] = []
    if not isinstance(plugins, dict):
        return out
    for plugin_id, entries in plugins.items():
        for entry in entries if isinstance(entries, list) else []:
            record_ = _installed(plugin_id, entry)
            if record_ is not None:
                out.append(record_)
    return out


def _installed(plugin_id: str, entry: object) -> Installed | None:
    if not isinstance(entry, dict):
        return None
    scope, path = entry.get("scope"), entry.get("installPath")
    if scope not in SCOPES or not isinstance(path, str):
        return None
    project = entry.get("projectPath")
    commit = entry.get("gitCommitSha")
    return Installed(
        plugin_id,
        scope,
        Path(path),
        str(entry.get("version", "")),
        str(entry.get("installedAt", "")),
        project if isinstance(project, str) else None,
        commit if isinstance(commit, str) else None,
    )


def _entry(item: Installed) -> dict[str, Any]:
    out: dict[str, Any] = {
        "scope": item.scope,
        "installPath": str(item.install_path),
        "version": item.version,
        "installedAt": item.installed_at,
        "lastUpdated": now_iso(),
    }
    if item.project_path is not None:
        out["projectPath"] = item.project_path
    if item.git_commit is not None:
        out["gitCommitSha"] = item.git_commit
    return out


def _same_place(entry: object, scope: Scope, project: str | None) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("scope") == scope
        and (scope == "user" or entry.get("projectPath") == project)
    )


def record_install(paths: WavePaths, item: Installed) -> None:
    """Add or replace the entry of `item`'s plugin in its scope (and project)."""

    def change(data: dict[str, Any]) -> None:
        data["version"] = INSTALLED_VERSION
        plugins = data.setdefault("plugins", {})
        entries = [
            e
            for e in plugins.get(item.plugin_id, [])
            if not _same_place(e, item.scope, item.project_path)
        ]
        plugins[item.plugin_id] = [*entries, _entry(item)]

    _update_json(paths.installed_plugins_file, change)


def forget_install(paths: WavePaths, plugin_id: str, scope: Scope, project: str | None) -> None:
    def change(data: dict[str, Any]) -> None:
        plugins = data.setdefault("plugins", {})
        left = [e for e in plugins.get(plugin_id, []) if not _same_place(e, scope, project)]
        if left:
            plugins[plugin_id] = left
        else:
            plugins.pop(plugin_id, None)

    _update_json(paths.installed_plugins_file, change)


# -- enabledPlugins in the settings files ---------------------------------------------------
def settings_file(paths: WavePaths, scope: Scope) -> Path:
    return {
        "user": paths.user_settings,
        "project": paths.project_settings,
        "local": paths.local_settings,
    }[scope]


# req: PG5
def set_enabled(paths: WavePaths, plugin_id: str, scope: Scope, value: bool | None) -> None:
    """`enabledPlugins[plugin_id]` in the scope's settings file (None removes it); every other
    key is kept. A file that is not a JSON object is left alone (PluginError)."""
    target = settings_file(paths, scope)
    label = display_path(target, paths.project_root, paths.home)

    def update(text: str | None) -> str | None:
        data: Any = {}
        if text is not None and text.strip():
            try:
                data = json.loads(text)
            except ValueError as exc:
                raise PluginError(f"{label} is not valid JSON; fix it first ({exc})") from exc
            if not isinstance(data, dict):
                raise PluginError(f"{label} must contain a JSON object; not overwriting it")
        enabled = data.get(ENABLED_KEY)
        enabled = dict(enabled) if isinstance(enabled, dict) else {}
        if value is None:
            if plugin_id not in enabled:
                return None
            enabled.pop(plugin_id)
        else:
            enabled[plugin_id] = value
        data[ENABLED_KEY] = enabled
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    target.parent.mkdir(parents=True, exist_ok=True)
    locked_update(target, update)


def enabled_map(layers: list[tuple[Scope, Mapping[str, Any]]]) -> dict[str, tuple[bool, Scope]]:
    """`enabledPlugins` across the layers (lowest precedence first): each id's last word and the
    scope that said it."""
    out: dict[str, tuple[bool, Scope]] = {}
    for scope, data in layers:
        raw = data.get(ENABLED_KEY)
        if not isinstance(raw, dict):
            continue
        for plugin_id, value in raw.items():
            if isinstance(value, bool):
                out[str(plugin_id)] = (value, scope)
    return out


def extra_markets(layers: list[tuple[Scope, Mapping[str, Any]]]) -> dict[str, MarketSource]:
    """`extraKnownMarketplaces` of every settings layer, later layers winning by name."""
    out: dict[str, MarketSource] = {}
    for _scope, data in layers:
        raw = data.get(EXTRA_MARKETS_KEY)
        if not isinstance(raw, dict):
            continue
        for name, entry in raw.items():
            source = source_of(entry.get("source")) if isinstance(entry, dict) else None
            if source is not None:
                out[str(name)] = source
    return out


def file_layers(paths: WavePaths) -> list[tuple[Scope, Mapping[str, Any]]]:
    """The three settings files as read now (for `wave plugin …`, which has no settings store);
    a broken file counts as empty, as the store would name it elsewhere."""
    return [(scope, _load(settings_file(paths, scope))) for scope in SCOPES]
