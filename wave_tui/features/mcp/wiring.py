"""The MCP servers of one session, as one loop extension (MC1–MC8 wired).

`McpWiring` reads `.mcp.json` and every settings file's `mcpServers`, and — only when there is
a server — builds the `McpManager` (so a session without servers never imports it nor the SDK),
offers its tools and instructions through the loop's protocols, and registers `/mcp`.
Servers are started in the background at session start (`start()`, inside the running loop);
`wave -p` awaits `wait_started()` before its first request; every turn (the app's, an SDK
program's) waits at its start for servers still starting, at most their startup timeout
(`MCP_TIMEOUT` ms), saying which it waits for.
Project servers (`.mcp.json`, project settings) need the user's trust in the app, like project
hooks (`config/trust.py`, kind "mcp"); until then they are not started. `wave -p` runs them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.agent.extensions import (
    ContextSource,
    ContextSourceBase,
    SessionObserver,
    SessionObserverBase,
    ToolProvider,
    TurnObserver,
    TurnObserverBase,
    TurnStart,
    WorkdirObserver,
)
from wave_tui.agent.service import AgentService
from wave_tui.config.trust import NOT_TRUSTED_YET, TrustMode, TrustRequested, TrustStore
from wave_tui.mcp.config import Layer, McpConfig, ServerConfig, load_servers, read_mcp_json
from wave_tui.tools.base import Tool

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings
    from wave_tui.features.mcp.host import SessionHost
    from wave_tui.mcp.manager import McpManager, ServerStatus


def read_mcp_config(service: AgentService, extra: Sequence[Layer] = ()) -> McpConfig:  # req: MC1
    """Servers from `extra` (plugins) first, then `.mcp.json`, then the settings files (later
    layers win by name)."""
    layer, problem = (
        read_mcp_json(service.paths.project_mcp_json)
        if service.options.read_mcp_json
        else (None, None)
    )
    layers: list[Layer] = [*extra]
    layers += [layer] if layer is not None else []
    layers += [(s.path, s.scope, s.data) for s in service.store.layers()]
    environ = service.options.environ if service.options.environ is not None else os.environ
    config = load_servers(layers, environ)
    if problem is not None:
        return McpConfig(config.servers, (problem, *config.problems))
    return config


def trust_items(servers: Sequence[ServerConfig]) -> list[str]:
    """What a project's server set is fingerprinted (and shown to the user) as.

    A stdio server's `env` and `cwd` are part of what runs (`PYTHONPATH`, `NODE_OPTIONS` or
    another folder change the code as much as the command does), so a change to them asks again.
    """
    items = []
    for server in servers:
        if server.kind == "stdio":
            words = [f"{server.name}:", server.command, *server.args]
            words += [f"[env {key}={server.env[key]}]" for key in sorted(server.env)]
            if server.cwd is not None:
                words.append(f"[cwd {server.cwd}]")
            items.append(" ".join(words))
        else:
            items.append(f"{server.name}: {server.url}")
    return items


class McpWiring(ContextSourceBase, SessionObserverBase, TurnObserverBase):
    """ToolProvider + ContextSource + SessionObserver + TurnObserver (`@server:uri`) +
    WorkdirObserver (roots) over the (lazily built) manager."""

    # req: MC6
    def __init__(self, service: AgentService, config: McpConfig, trust: TrustStore) -> None:
        self._service = service
        self.config = config
        self._trust = trust
        self.extra: Sequence[Layer] = ()  # the plugins' layers the config was read with
        self._seen = _sources(service)  # what the config was read from: changes are picked up
        self.manager: McpManager | None = None
        self.host: SessionHost | None = None
        self._roots_task: asyncio.Task[None] | None = None
        # What the flat `mcp__*` tools are offered as (Exec folds them into one tool); None: as is.
        self.gather: Callable[[list[Tool]], list[Tool]] | None = None
        # Told at start(), when the front end listens.
        self._notices: list[str] = list(config.problems)
        own = [s for s in config.servers if not s.needs_trust]
        project = [s for s in config.servers if s.needs_trust]
        self._untrusted: list[ServerConfig] = []
        if project:
            request = trust.request(service.paths.project_root, "mcp", trust_items(project))
            if request is None:
                own += project
            else:
                self._untrusted = project
                self._notices.append(
                    f"project MCP servers not started: {NOT_TRUSTED_YET} ({len(project)} in "
                    f"{service.paths.project_mcp_json.name} or project settings)"
                )
        if config.servers:
            self._build(own)

    # req: MC7
    def _build(self, servers: Sequence[ServerConfig]) -> None:
        from wave_tui.features.mcp.command import mcp_command
        from wave_tui.features.mcp.host import SessionHost
        from wave_tui.features.mcp.prompt_commands import PromptCommands
        from wave_tui.mcp.manager import McpManager

        self.host = SessionHost(self._service)
        environ = self._service.options.environ
        self.manager = McpManager(
            servers,
            workdir=self._service.paths.project_root,
            notify=lambda line: self._service.notify("warning", line),
            auth_file=self._service.paths.mcp_auth_file,
            host=self.host,
            startup_timeout=startup_timeout(os.environ if environ is None else environ),
        )
        self._service.commands.register(
            mcp_command(self.manager, lambda line: self._service.notify("info", line))
        )
        self._service.commands.add_provider(PromptCommands(self.manager))

    # -- life ----------------------------------------------------------------------------------
    def start(self) -> None:  # req: MC2
        """Start the servers in the background; needs a running loop (no loop: no-op)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        notices, self._notices = self._notices, []
        for line in notices:
            self._service.notify("warning", line)
        if self.manager is not None:
            self.manager.start()

    async def wait_started(self) -> None:
        """Until no server is still starting (`wave -p`, before its first request)."""
        if self.manager is not None:
            self.start()
            await self.manager.wait_started()

    def statuses(self) -> list[ServerStatus]:
        return self.manager.statuses() if self.manager is not None else []

    # -- trust (MC6) ---------------------------------------------------------------------------
    def trust_needed(self) -> TrustRequested | None:
        if not self._untrusted:
            return None
        return self._trust.request(
            self._service.paths.project_root, "mcp", trust_items(self._untrusted)
        )

    async def grant_trust(self, request: TrustRequested) -> None:
        """The user trusted the project's servers: remember it, start them now."""
        await asyncio.to_thread(self._trust.record, request)
        servers, self._untrusted = self._untrusted, []
        if not servers:
            return
        if self.manager is None:  # the session had no server before these
            self._build(servers)
            self.start()
        else:
            self.manager.add(servers)

    # -- plugins enabled or disabled during the session ----------------------------------------
    async def follow_plugins(self, config: McpConfig, before: set[str]) -> None:
        """Start the servers of `config` not running yet (a project plugin's once trusted) and
        stop those of `before` that it no longer names."""
        for line in config.problems:
            self._service.notify("warning", line)
        names = {s.name for s in config.servers}
        if self.manager is not None:
            for name in sorted(before - names):
                await self.manager.remove(name)
        self._take([s for s in config.servers if s.name not in before])

    def _take(self, new: Sequence[ServerConfig]) -> None:
        """Start `new` servers now; project ones not trusted yet wait for trust (said once)."""
        project = [s for s in new if s.needs_trust]
        ready = [s for s in new if not s.needs_trust]
        if project:
            root = self._service.paths.project_root
            if self._trust.request(root, "mcp", trust_items(project)) is None:
                ready += project
            else:
                self._untrusted += project
                self._service.notify(
                    "warning",
                    f"new project MCP servers not started: {NOT_TRUSTED_YET} "
                    f"({', '.join(s.name for s in project)})",
                )
        if not ready:
            return
        if self.manager is None:
            self._build(ready)
            self.start()
        else:
            self.manager.add(ready)

    # -- servers added while the session runs (`.mcp.json`, settings `mcpServers`) --------------
    # req: FH6
    def pick_up_new(self) -> None:
        """Servers named since the config was read start now (project ones once trusted);
        removed or changed ones run on until the session ends (a restart applies those)."""
        seen = _sources(self._service)
        if seen == self._seen:
            return
        self._seen = seen
        config = read_mcp_config(self._service, self.extra)
        known = {s.name for s in self.config.servers} | {s.name for s in self._untrusted}
        if self.manager is not None:
            known |= set(self.manager.names())
        new = [s for s in config.servers if s.name not in known]
        self.config = McpConfig((*self.config.servers, *new), config.problems)
        if new:
            self._take(new)

    def on_settings(self, settings: EffectiveSettings) -> None:
        self.pick_up_new()

    # -- ToolProvider --------------------------------------------------------------------------
    def tools(self) -> list[Tool]:  # req: MC3
        if self.manager is None:
            return []
        tools = self.manager.tools()
        if self.gather is not None:
            tools = self.gather(tools)
        if self.manager.offers_resources():
            from wave_tui.features.mcp.resource_tools import (
                ListMcpResourcesTool,
                ReadMcpResourceTool,
            )

            tools += [ListMcpResourcesTool(self.manager), ReadMcpResourceTool(self.manager)]
        return tools

    # -- `@server:uri` (MO3) -------------------------------------------------------------------
    # req: MO3
    async def on_turn_start(self, prompt: str) -> TurnStart:
        """Servers still starting waited for; then each `@server:uri` of the prompt read and
        attached after it (one line if it fails)."""
        self.pick_up_new()  # a `.mcp.json` written since (not a settings file: not watched)
        if self.manager is not None:
            await self._wait_for_starting()
        if self.manager is None or "@" not in prompt:
            return TurnStart()
        from wave_tui.features.mcp.mentions import mentions, resource_block

        blocks = []
        for mention in mentions(prompt, self.manager.names()):
            result = await self.manager.read_resource(mention.server, mention.uri)
            blocks.append(resource_block(mention, result.content, failed=result.is_error))
        return TurnStart(context=tuple(blocks))

    # req: MA9
    async def _wait_for_starting(self) -> None:
        """A turn sent while a server starts gets its tools (bounded by the startup timeout)."""
        manager = self.manager
        if manager is None:
            return
        starting = [s.name for s in manager.statuses() if s.state == "starting"]
        if not starting:
            return
        self._service.notify("info", f"waiting for MCP servers to start: {', '.join(starting)}")
        await manager.wait_started()

    # req: MA6
    def complete_mention(
        self, text: str, files: tuple[str, tuple[str, ...]]
    ) -> tuple[str, tuple[str, ...]]:
        """Tab on `@partial`: the files, and the ready servers' resources as `server:uri`."""
        if self.manager is None:
            return files
        from wave_tui.features.mcp.mentions import complete_mention

        names = [f"{server}:{r.uri}" for server, r in self.manager.resources()]
        # A template completes to its URI with the `{placeholders}` left for the user to fill.
        names += [f"{server}:{t.uri_template}" for server, t in self.manager.templates()]
        return complete_mention(text, files, names) if names else files

    # -- ContextSource -------------------------------------------------------------------------
    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        return self.manager.system_sections(settings) if self.manager is not None else []

    # -- WorkdirObserver -----------------------------------------------------------------------
    # req: MA1
    def on_workdir_changed(self, old: Path, new: Path) -> None:
        """The roots follow the session into (or out of) a worktree: the servers are told."""
        if self.manager is None:
            return
        with contextlib.suppress(RuntimeError):  # no running loop: no server is running either
            self._roots_task = asyncio.get_running_loop().create_task(self.manager.roots_changed())

    # -- SessionObserver -----------------------------------------------------------------------
    async def aclose(self) -> None:  # req: MC8
        if self._roots_task is not None:
            with contextlib.suppress(Exception):
                await self._roots_task
        if self.manager is not None:
            await self.manager.aclose()


# req: MA9
def startup_timeout(environ: Mapping[str, str]) -> float:
    """`MCP_TIMEOUT` (milliseconds) or the default, in seconds (a bad value: the default)."""
    from wave_tui.mcp.manager import STARTUP_TIMEOUT_S

    raw = environ.get("MCP_TIMEOUT", "").strip()
    try:
        value = float(raw) / 1000 if raw else STARTUP_TIMEOUT_S
    except ValueError:
        return STARTUP_TIMEOUT_S
    return value if value > 0 else STARTUP_TIMEOUT_S


def install_mcp(service: AgentService, extra: Sequence[Layer] = ()) -> McpWiring:
    """Read the servers (plugins' `extra` layers first) and plug the wiring in (config problems:
    one warning line each, told at `start()`)."""
    mode: TrustMode = "invoker" if service.options.headless else "ask"
    config = read_mcp_config(service, extra)
    wiring = McpWiring(service, config, TrustStore(service.paths.trust_file, mode))
    wiring.extra = extra
    service.add_extension(
        wiring, ContextSource, ToolProvider, TurnObserver, SessionObserver, WorkdirObserver
    )
    return wiring


def _sources(service: AgentService) -> tuple[int, tuple[int, int] | None]:
    """The settings' version and `.mcp.json`'s change time and size (None: no file)."""
    try:
        info = service.paths.project_mcp_json.stat()
        mcp_json: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
    except OSError:
        mcp_json = None
    return service.store.version, mcp_json


def mcp_of(service: AgentService) -> McpWiring | None:
    return service.extensions.of_type(McpWiring)
