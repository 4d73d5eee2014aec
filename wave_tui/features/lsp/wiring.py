"""The language servers of one session, as one loop extension: the `LSP` tool, the documents
kept in step with Reads and Edits, diagnostics after every Write/Edit, `/lsp`, the end.

`install_lsp(service, servers)` takes the `{NAME: {...}}` server configs (settings `lspServers`
merged across files, or a plugin's `.lsp.json`); `LspWiring.add_servers` takes more later.
Servers start on first use for a matching file, never at session start.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from wave_tui.agent.extensions import (
    SessionObserver,
    SessionObserverBase,
    ToolObserver,
    ToolOutcome,
    ToolProvider,
    TurnObserver,
    TurnObserverBase,
    TurnStart,
)
from wave_tui.agent.service import AgentService
from wave_tui.config.trust import NOT_TRUSTED_YET, TrustMode, TrustRequested, TrustStore
from wave_tui.features.lsp.command import lsp_command
from wave_tui.features.lsp.config import (
    SETTINGS_KEY,
    LspConfig,
    diagnostics_timeout,
    merge,
    parse_servers,
)
from wave_tui.features.lsp.errors import LspError
from wave_tui.features.lsp.manager import LspManager, load_operations
from wave_tui.features.lsp.tool import LspTool
from wave_tui.permissions.tool_table import EDIT, READ, WRITE
from wave_tui.tools.base import Tool

DIAGNOSTICS_SUMMARY = " · {n} LSP error{s}"


class LspWiring(SessionObserverBase, TurnObserverBase):
    """ToolProvider + ToolObserver + SessionObserver over one `LspManager`; its configuration
    problems are told once, when the first turn starts (the front end listens by then)."""

    def __init__(
        self,
        manager: LspManager,
        diagnostics_timeout_s: float,
        untrusted: LspConfig | None = None,
        trust: TrustStore | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.manager = manager
        self.diagnostics_timeout_s = diagnostics_timeout_s
        self._tool = LspTool(manager)
        self._untrusted = untrusted or LspConfig()
        self._trust = trust
        self._notify = notify
        self._told = False
        # The settings' servers now (set by `install_lsp`): ones named later are picked up.
        self.settings_source: Callable[[], LspConfig] | None = None

    def problems(self) -> list[str]:
        """Configuration problems, and the project servers still waiting for trust."""
        lines = list(self.manager.config.problems)
        if self._untrusted.servers:
            lines.append(
                f"project language servers not started: {NOT_TRUSTED_YET} "
                f"({len(self._untrusted.servers)} in project settings)"
            )
        return lines

    # -- trust (project servers, like project hooks and MCP servers) ---------------------------
    def trust_needed(self) -> TrustRequested | None:
        if not self._untrusted.servers or self._trust is None:
            return None
        return self._trust.request(self.manager.root, "lsp", trust_items(self._untrusted))

    async def grant_trust(self, request: TrustRequested) -> None:
        """The user trusted the project's servers: remember it; they start on first use."""
        if self._trust is not None:
            await asyncio.to_thread(self._trust.record, request)
        untrusted, self._untrusted = self._untrusted, LspConfig()
        self.manager.config = merge([self.manager.config, untrusted])

    def add_servers(self, raw: Mapping[str, Any], source: str) -> tuple[str, ...]:
        return self.manager.add_servers(raw, source)

    # -- ToolProvider --------------------------------------------------------------------------
    # req: LS5
    def tools(self) -> list[Tool]:
        return [self._tool] if self.manager.config.servers else []

    # -- ToolObserver --------------------------------------------------------------------------
    async def after_tool(self, outcome: ToolOutcome) -> None:
        result = outcome.result
        if result.is_error:
            return
        name = outcome.call.name
        if name == READ:
            await self._follow_reads(result.read_paths)
        elif name in (WRITE, EDIT):
            await self._diagnose(outcome, result.written_paths)

    async def _follow_reads(self, paths: Iterable[Path]) -> None:
        """A file read while its server runs is opened there (a Read never starts a server)."""
        for path in paths:
            server = self.manager.running(path)
            found = self.manager.config_for(path)
            if server is None or found is None:
                continue
            operations = await load_operations()
            with contextlib.suppress(LspError, OSError, ValueError):
                await operations.sync_file(server, path, found[1])

    # req: LS4
    async def _diagnose(self, outcome: ToolOutcome, paths: Iterable[Path]) -> None:
        for path in paths:
            if not self.manager.handles(path):
                continue
            operations = await load_operations()
            try:
                block = await operations.diagnostics_after_edit(
                    self.manager, path, self.diagnostics_timeout_s
                )
            except (LspError, OSError, ValueError):
                continue  # the edit stands; /lsp shows what went wrong with the server
            if block is None:
                continue
            count = block.count("\n") - 1
            outcome.result.content += f"\n\n{block}"
            outcome.result.summary += DIAGNOSTICS_SUMMARY.format(
                n=count, s="" if count == 1 else "s"
            )

    # -- TurnObserver --------------------------------------------------------------------------
    async def on_turn_start(self, prompt: str) -> TurnStart:
        if not self._told and self._notify is not None:
            self._told = True
            for problem in self.problems():
                self._notify(problem)
        return TurnStart()

    # -- SessionObserver -----------------------------------------------------------------------
    # req: FH6
    def on_settings(self, settings: object) -> None:
        """Servers named in `lspServers` since are offered from the next turn (project ones
        once trusted); changed or removed ones run on until the session ends."""
        if self.settings_source is None:
            return
        known = {s.name for s in (*self.manager.config.servers, *self._untrusted.servers)}
        new = [s for s in self.settings_source().servers if s.name not in known]
        project = tuple(s for s in new if s.needs_trust)
        ready = tuple(s for s in new if not s.needs_trust)
        if project and self._trust is not None:
            if self._trust.request(self.manager.root, "lsp", trust_items(LspConfig(project))):
                self._untrusted = merge([self._untrusted, LspConfig(project)])
                if self._notify is not None:
                    names = ", ".join(s.name for s in project)
                    self._notify(
                        f"new project language servers not started: {NOT_TRUSTED_YET} ({names})"
                    )
            else:
                ready += project
        if ready:
            self.manager.config = merge([self.manager.config, LspConfig(ready)])

    async def aclose(self) -> None:
        await self.manager.aclose()


def settings_servers(service: AgentService) -> LspConfig:
    """`lspServers` of every settings file, later files winning by name."""
    return merge(
        parse_servers(layer.data[SETTINGS_KEY], str(layer.path), layer.scope)
        for layer in service.store.layers()
        if SETTINGS_KEY in layer.data
    )


def trust_items(config: LspConfig) -> list[str]:
    """What a project's server set is fingerprinted (and shown to the user) as."""
    return [" ".join([f"{s.name}:", s.command, *s.args]) for s in config.servers]


# req: LS2
def install_lsp(service: AgentService, servers: LspConfig | None = None) -> LspWiring:
    """Plug the servers in (settings `lspServers` when `servers` is None); config problems are
    one warning line each, told at the first turn. In the app, servers from project settings
    wait for the user's trust."""
    config = settings_servers(service) if servers is None else servers
    mode: TrustMode = "invoker" if service.options.headless else "ask"
    trust = TrustStore(service.paths.trust_file, mode)
    root = service.paths.project_root
    project = LspConfig(tuple(s for s in config.servers if s.needs_trust))
    ready = LspConfig(tuple(s for s in config.servers if not s.needs_trust), config.problems)
    if project.servers and trust.request(root, "lsp", trust_items(project)) is None:
        ready, project = config, LspConfig()
    manager = LspManager(ready, root)
    layers = [layer.data for layer in service.store.layers()]
    wiring = LspWiring(
        manager,
        diagnostics_timeout(layers),
        project,
        trust,
        lambda line: service.notify("warning", line),
    )
    wiring.settings_source = lambda: settings_servers(service)
    service.add_extension(wiring, ToolProvider, ToolObserver, TurnObserver, SessionObserver)
    service.commands.register(lsp_command(manager, wiring.problems))
    return wiring


def lsp_of(service: AgentService) -> LspWiring | None:
    return service.extensions.of_type(LspWiring)
