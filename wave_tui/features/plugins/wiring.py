"""The enabled plugins of one session, handed to the project's own loaders, kept in step live.

`plugin_sources(service)` makes the `ActivePlugins` the commands, skills, hooks, MCP and LSP
loaders read (each took a source of extra roots or layers: no second loader). Commands, skills
and hooks re-read it on every lookup already; `PluginSync` is the `TurnObserver` that, when the
set changed (enable / disable in any settings file), gives the Agent tool its new catalog, starts
newly enabled MCP and LSP servers and stops disabled MCP servers — from the next turn, no restart.
`/plugin` in `wave -p` lists what is installed; the app opens its screen instead.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from wave_tui.agent.commands import Command, CommandOutput, CommandResult
from wave_tui.agent.extensions import TurnObserver, TurnObserverBase, TurnStart
from wave_tui.agent.service import AgentService
from wave_tui.features.plugins.active import ActivePlugins
from wave_tui.features.plugins.state import Scope

if TYPE_CHECKING:
    from wave_tui.features.lsp.config import LspConfig
    from wave_tui.features.lsp.wiring import LspWiring
    from wave_tui.features.mcp.wiring import McpWiring
    from wave_tui.features.subagents.definitions import SubagentDefinition
    from wave_tui.features.tasks.parts import TaskFeatures


def plugin_sources(service: AgentService) -> ActivePlugins:
    """The session's enabled plugins (settings read live from the service's store)."""

    def layers() -> list[tuple[Scope, Mapping[str, Any]]]:
        return [(layer.scope, layer.data) for layer in service.store.layers()]

    return ActivePlugins(
        service.paths,
        layers,
        lambda line: service.notify("warning", line),
        tuple(service.options.plugin_dirs),
    )


def plugin_lsp_config(active: ActivePlugins) -> LspConfig:
    """Every enabled plugin's `.lsp.json`, in the LSP loader's own form."""
    from wave_tui.features.lsp.config import merge, parse_servers

    return merge(
        parse_servers(data, str(source), scope) for source, scope, data in active.lsp_layers()
    )


class PluginSync(TurnObserverBase):
    """Before each turn: what changed in the enabled set reaches the parts built at start."""

    def __init__(self, service: AgentService, active: ActivePlugins) -> None:
        self._service = service
        self._active = active
        self._seen = -1
        self._mcp_names: set[str] = set()
        self._lsp_names: set[str] = set()
        self._extra_builtins: tuple[SubagentDefinition, ...] | None = None

    def sync(self) -> None:
        """Bring the Agent tool, MCP and LSP in line (blocking reads: at start, or in a thread)."""
        active = self._active
        plugins = active.plugins()
        if active.generation == self._seen:
            return
        first, self._seen = self._seen < 0, active.generation
        if not (first and not any(a.plugin.agent_dirs for a in plugins)):
            self._sync_agents()  # at start only when a plugin has agents

    # req: PG10
    async def on_turn_start(self, prompt: str) -> TurnStart:
        before = self._seen
        await asyncio.to_thread(self.sync)
        self._active.release()
        if self._seen != before:
            await self._sync_servers()
        return TurnStart()

    # req: FH10
    def _sync_agents(self) -> None:
        from wave_tui.features.subagents.definitions import BUILTIN_AGENTS, load_subagents
        from wave_tui.features.subagents.tool import AgentTool
        from wave_tui.features.tasks.parts import TaskFeatures

        features: TaskFeatures | None = self._service.extensions.of_type(TaskFeatures)
        if features is None:
            return
        if self._extra_builtins is None:  # the built-in types the settings enabled, kept
            own = {b.name for b in BUILTIN_AGENTS}
            self._extra_builtins = tuple(
                d
                for d in features.catalog.definitions
                if d.source == "built-in" and d.name not in own
            )
        roots = self._active.agent_roots()
        features.agent_roots[:] = roots
        catalog = load_subagents(self._service.paths, self._extra_builtins, roots)
        # An agent file that cannot be read costs one line, never a silent drop.
        for warning in catalog.warnings:
            self._active.tell(warning)
        features.catalog = catalog
        for tool in features.tools():
            if isinstance(tool, AgentTool):
                tool.use_catalog(catalog)

    def note_started(self, mcp: set[str], lsp: set[str]) -> None:
        """The plugin servers the session started with (already in their managers)."""
        self._mcp_names, self._lsp_names = set(mcp), set(lsp)

    async def _sync_servers(self) -> None:
        from wave_tui.features.mcp.wiring import mcp_of

        wiring: McpWiring | None = mcp_of(self._service)
        if wiring is not None:
            from wave_tui.mcp.config import load_servers

            options = self._service.options
            environ = options.environ if options.environ is not None else os.environ
            config = load_servers(self._active.mcp_layers(), environ)
            names = {s.name for s in config.servers}
            await wiring.follow_plugins(config, self._mcp_names)
            self._mcp_names = names
        lsp = _lsp_of(self._service)
        if lsp is not None:
            config_ = plugin_lsp_config(self._active)
            for server in config_.servers:
                if server.name not in self._lsp_names and not server.needs_trust:
                    lsp.manager.config = _with(lsp.manager.config, server)
                    self._lsp_names.add(server.name)


def _lsp_of(service: AgentService) -> LspWiring | None:
    from wave_tui.features.lsp.wiring import LspWiring

    return service.extensions.of_type(LspWiring)


def _with(config: LspConfig, server: Any) -> LspConfig:
    from wave_tui.features.lsp.config import LspConfig

    return LspConfig((*config.servers, server), config.problems)


def plugin_command(active: ActivePlugins) -> Command:
    """`/plugin` where no screen answers it (`wave -p`): the plugins in force, one line each."""

    async def run(args: str) -> CommandResult:
        plugins = await asyncio.to_thread(active.plugins)
        if not plugins:
            return CommandOutput("No plugins enabled. `wave plugin install NAME@MARKET` adds one.")
        lines = [
            f"{a.plugin_id} {a.plugin.version} ({a.scope}) {a.plugin.description}".rstrip()
            for a in plugins
        ]
        return CommandOutput("Enabled plugins:\n" + "\n".join(lines))

    return Command("plugin", "Manage plugins and their marketplaces", run)


def install_plugin_sync(service: AgentService, active: ActivePlugins) -> PluginSync:
    sync = PluginSync(service, active)
    sync.sync()
    if active.plugins():
        from wave_tui.mcp.config import load_servers

        mcp = load_servers(active.mcp_layers(), {**os.environ, **(service.options.environ or {})})
        sync.note_started(
            {s.name for s in mcp.servers}, {s.name for s in plugin_lsp_config(active).servers}
        )
    service.add_extension(sync, TurnObserver)
    service.commands.register(plugin_command(active))
    return sync
