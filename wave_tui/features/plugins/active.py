"""The plugins in force for one session, as sources for the project's own loaders.

Enabled means: installed (`installed_plugins.json`, for this project when its scope is project or
local) and `true` in the last settings layer of `enabledPlugins` that names it — or given by the
program (the SDK's `plugins`). The plugin's *scope* for trust is the scope of that layer: a plugin
turned on by the project's settings is project code. Re-read whenever the installed file or a
settings layer's `enabledPlugins` changed (a stat and a dict compare), so enable and disable take
effect from the next turn. Each problem is told once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.commands.markdown_files import ExtraRoot
from wave_tui.features.plugins.state import ENABLED_KEY, Scope

if TYPE_CHECKING:
    from wave_tui.features.plugins.manifest import Plugin

PROGRAM_MARKET = "inline"  # the id's market part for a plugin the program gave by path

LayerList = Callable[[], list[tuple[Scope, Mapping[str, Any]]]]


@record
class ActivePlugin:
    plugin_id: str
    scope: Scope
    plugin: Plugin


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


class ActivePlugins:
    """The enabled plugins, cached while nothing they depend on changed."""

    def __init__(
        self,
        paths: WavePaths,
        layers: LayerList,
        warn: Callable[[str], None],
        program_dirs: Sequence[Path] = (),
    ) -> None:
        self.paths = paths
        self._layers = layers
        self._warn = warn
        self._program_dirs = tuple(program_dirs)
        self._key: object = None
        self._active: list[ActivePlugin] = []
        self._told: set[str] = set()
        self._held: list[str] | None = []  # until `release`
        self.generation = 0  # grows whenever the active set changed

    def plugins(self) -> list[ActivePlugin]:
        layers = self._layers()
        key = (
            _signature(self.paths.installed_plugins_file),
            json.dumps([data.get(ENABLED_KEY) for _s, data in layers], sort_keys=True, default=str),
        )
        if key != self._key:
            self._key = key
            nothing = not self._program_dirs and not any(d.get(ENABLED_KEY) for _s, d in layers)
            self._active = [] if nothing else self._load(layers)
            self.generation += 1
        return self._active

    def tell(self, line: str) -> None:
        """Warn once about `line` (held until `release` while the session is being built)."""
        if line not in self._told:
            self._told.add(line)
            if self._held is None:
                self._warn(line)
            else:
                self._held.append(line)

    def release(self) -> None:
        """Tell the lines held since start (nobody listened while the session was built)."""
        held, self._held = self._held or [], None
        for line in held:
            self._warn(line)

    # req: PG5
    def _load(self, layers: list[tuple[Scope, Mapping[str, Any]]]) -> list[ActivePlugin]:
        from wave_tui.features.plugins.manifest import ManifestError, load_plugin
        from wave_tui.features.plugins.state import enabled_map, installed_plugins

        wanted: list[tuple[str, Scope, Path, str]] = [
            (f"{p.name}@{PROGRAM_MARKET}", "user", p, p.name) for p in self._program_dirs
        ]
        records = installed_plugins(self.paths)
        project = str(self.paths.project_root)
        for plugin_id, (on, scope) in enabled_map(layers).items():
            if not on:
                continue
            mine = [
                r
                for r in records
                if r.plugin_id == plugin_id and (r.scope == "user" or r.project_path == project)
            ]
            if not mine:
                self.tell(f"plugin {plugin_id} is enabled but not installed (wave plugin install)")
                continue
            wanted.append((plugin_id, scope, mine[-1].install_path, mine[-1].name))
        out: list[ActivePlugin] = []
        by_name: dict[str, str] = {}
        for plugin_id, scope, root, name in wanted:
            try:
                plugin = load_plugin(root, name)
            except ManifestError as exc:
                self.tell(f"plugin {plugin_id} not loaded: {exc}")
                continue
            for problem in plugin.problems:
                self.tell(f"plugin {plugin_id}: {problem}")
            if plugin.name in by_name:
                # Its commands, skills and agents would take the other one's names.
                self.tell(
                    f"plugin {plugin_id} not loaded: a plugin named {plugin.name!r} is already "
                    f"enabled ({by_name[plugin.name]})"
                )
                continue
            by_name[plugin.name] = plugin_id
            out.append(ActivePlugin(plugin_id, scope, plugin))
        return out

    # -- what each loader reads --------------------------------------------------------------
    # req: PG3
    def command_roots(self) -> list[ExtraRoot]:
        return [
            ExtraRoot(d, _loader_scope(a.scope), a.plugin.name, a.plugin.root)
            for a in self.plugins()
            for d in a.plugin.command_dirs
        ]

    def skill_roots(self) -> list[ExtraRoot]:
        return [
            ExtraRoot(d, _loader_scope(a.scope), a.plugin.name, a.plugin.root)
            for a in self.plugins()
            for d in a.plugin.skill_dirs
        ]

    def agent_roots(self) -> list[ExtraRoot]:
        return [
            ExtraRoot(d, _loader_scope(a.scope), a.plugin.name)
            for a in self.plugins()
            for d in a.plugin.agent_dirs
        ]

    # req: PG9
    def hook_layers(
        self,
    ) -> list[tuple[Path, Scope, Mapping[str, Any], tuple[tuple[str, str], ...]]]:
        """(file, the scope that enabled it, `{"hooks": …}`, the root variables as environment):
        the hooks loader's trust rule then holds a project's plugin hooks back, as its own."""
        return [
            (a.plugin.hooks_source, a.scope, a.plugin.hooks, tuple(root_env(a.plugin.root).items()))
            for a in self.plugins()
            if a.plugin.hooks is not None and a.plugin.hooks_source is not None
        ]

    def mcp_layers(self) -> list[tuple[Path, str, Mapping[str, Any]]]:
        return [
            (
                a.plugin.mcp_source,
                a.scope,
                {"mcpServers": with_root_env(a.plugin.mcp_servers, a.plugin.root)},
            )
            for a in self.plugins()
            if a.plugin.mcp_servers is not None and a.plugin.mcp_source is not None
        ]

    def lsp_layers(self) -> list[tuple[Path, Scope, Mapping[str, Any]]]:
        return [
            (a.plugin.lsp_source, a.scope, with_root_env(a.plugin.lsp_servers, a.plugin.root))
            for a in self.plugins()
            if a.plugin.lsp_servers is not None and a.plugin.lsp_source is not None
        ]


def root_env(root: Path) -> dict[str, str]:
    """What Claude Code sets for a plugin's processes: scripts find their files through it."""
    return {"CLAUDE_PLUGIN_ROOT": str(root), "WAVE_PLUGIN_ROOT": str(root)}


def with_root_env(servers: Mapping[str, Any], root: Path) -> dict[str, Any]:
    """Each server entry with the root variables added to its `env` (its own win)."""
    out: dict[str, Any] = {}
    for name, entry in servers.items():
        if isinstance(entry, dict) and "command" in entry:
            own = entry.get("env", {})
            if isinstance(own, dict):  # a wrong one is left for the loader to name
                entry = {**entry, "env": {**root_env(root), **own}}
        out[name] = entry
    return out


def _loader_scope(scope: Scope) -> str:
    """Commands and skills know two scopes: a plugin turned on by the project is the project's."""
    return "user" if scope == "user" else "project"
