"""All MCP servers of a session: started together in the background, offered as tools.

`McpManager` does the work behind the agent's one MCP extension (`features/mcp/wiring.py`, which
answers the loop's protocols and delegates here):
- `tools()` (a `ToolProvider`): the tools of every ready server, asked before each request, so
  a server that became ready or changed its list counts from the next request;
- `system_sections()`: the servers' `instructions` for the dynamic system block;
- `aclose()`: every server ended, every child process gone.
The `mcp` SDK is imported only when there is a server to start (`start()` with servers).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wave_tui.config.records import record
from wave_tui.mcp.config import ServerConfig
from wave_tui.mcp.tools import McpTool, NotOffered, offered_tools, qualified_name
from wave_tui.tools.base import Tool, ToolResult, error_result

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings
    from wave_tui.mcp.client_host import ClientHost
    from wave_tui.mcp.connection import ServerConnection
    from wave_tui.mcp.http_auth import Consent
    from wave_tui.mcp.remote_lists import RemotePrompt, RemoteResource, ResourceTemplate

ServerState = Literal["starting", "ready", "needs-auth", "failed", "stopped"]
STARTUP_TIMEOUT_S = 30.0  # initialize + the first tools/list
CALL_TIMEOUT_S = 120.0  # one tools/call; a hung server costs at most this
CLOSE_TIMEOUT_S = 5.0  # after this the server task is cancelled (the guard still ends the child)
INSTRUCTIONS_HEADER = "# MCP server instructions"


@record
class ServerStatus:
    name: str
    kind: Literal["stdio", "http", "sse"]
    state: ServerState
    tools: tuple[str, ...]  # qualified names (`mcp__server__tool`)
    last_error: str | None
    instructions: str | None
    task_only: tuple[str, ...] = ()  # tools not offered: they only run as tasks
    logs: tuple[str, ...] = ()  # the server's last log messages
    not_offered: tuple[str, ...] = ()  # why other listed tools are not offered (one line each)


class McpManager:
    """`servers` are those the session may start (project servers only once trusted)."""

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        *,
        workdir: Path,
        notify: Callable[[str], None],
        startup_timeout: float = STARTUP_TIMEOUT_S,
        call_timeout: float = CALL_TIMEOUT_S,
        auth_file: Path | None = None,
        host: ClientHost | None = None,
    ) -> None:
        self._configs = {s.name: s for s in servers}
        self._host = host  # answers the servers' roots, elicitation and sampling requests
        self._auth_file = auth_file  # OAuth tokens of HTTP servers (None: no OAuth)
        self._workdir = workdir
        self._notify = notify
        self._startup_timeout = startup_timeout
        self._call_timeout = call_timeout
        self._connections: dict[str, ServerConnection] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._tools: list[McpTool] | None = None  # rebuilt after any change
        self._not_offered: list[NotOffered] = []  # of the last rebuild
        self._listeners: list[Callable[[], None]] = []
        self._started = False
        self._told: set[str] = set()  # tool problems already told (once per session each)

    # -- life ------------------------------------------------------------------------------

    def start(self) -> None:  # req: MC2
        """Start every server in the background (call from inside the running loop)."""
        if self._started:
            return
        self._started = True
        for name in self._configs:
            self._launch(name)

    def add(self, servers: Sequence[ServerConfig]) -> None:
        """More servers (e.g. the project's, once trusted); started at once if the rest are."""
        for server in servers:
            if server.name in self._configs:
                continue
            self._configs[server.name] = server
            if self._started:
                self._launch(server.name)
        self._changed()

    def _launch(self, name: str, consent: Consent | None = None) -> None:
        from wave_tui.mcp.connection import ServerConnection

        conn = ServerConnection(
            self._configs[name],
            workdir=self._workdir,
            startup_timeout=self._startup_timeout,
            call_timeout=self._call_timeout,
            notify=self._notify,
            on_change=self._changed,
            auth_file=self._auth_file,
            consent=consent,
            host=self._host,
        )
        self._connections[name] = conn
        self._tasks[name] = asyncio.create_task(conn.run(), name=f"wave-mcp-{name}")
        self._changed()

    async def wait_started(self) -> None:
        """Until no server is still starting (for `-p`, whose first request should see them)."""
        waits = [c.started.wait() for c in self._connections.values()]
        if waits:
            with contextlib.suppress(TimeoutError):
                # Each server fails by itself at its startup timeout; this is only a backstop.
                limit = self._startup_timeout + CLOSE_TIMEOUT_S
                await asyncio.wait_for(asyncio.gather(*waits), limit)

    async def restart(self, name: str) -> ServerStatus | None:  # req: MC7
        if name not in self._configs:
            return None
        await self._stop(name)
        self._launch(name)
        await self._connections[name].started.wait()
        return self.status(name)

    async def disconnect(self, name: str) -> ServerStatus | None:
        """Stop `name` but keep it configured (`restart` connects it again); None: no such
        server."""
        if name not in self._configs:
            return None
        await self._stop(name)
        self._connections.pop(name, None)
        self._changed()
        return self.status(name)

    # req: MO2
    async def authorize(self, name: str, consent: Consent) -> ServerStatus | None:
        """Reconnect `name` asking the user's consent (its URL goes to `consent.show`); returns
        once it is ready or failed. Cancelled (Esc, Ctrl+C): the attempt ends, nothing saved."""
        if name not in self._configs:
            return None
        await self._stop(name)
        self._launch(name, consent)
        try:
            await self._connections[name].started.wait()
        except asyncio.CancelledError:
            self._connections[name].stop()
            raise
        return self.status(name)

    # req: MO2
    async def logout(self, name: str) -> bool | None:
        """Forget `name`'s tokens and disconnect it (None: no such server; False: no tokens)."""
        if name not in self._configs:
            return None
        removed = False
        if self._auth_file is not None:
            from wave_tui.mcp.oauth_store import write_entry

            removed = await asyncio.to_thread(write_entry, self._auth_file, name, None)
        if removed:
            await self._stop(name)
            self._launch(name)
        return removed

    def kind_of(self, name: str) -> str | None:
        config = self._configs.get(name)
        return config.kind if config is not None else None

    async def remove(self, name: str) -> None:
        """Stop a server and forget it (its plugin was disabled)."""
        await self._stop(name)
        self._configs.pop(name, None)
        self._connections.pop(name, None)
        self._changed()

    async def _stop(self, name: str) -> None:
        conn, task = self._connections.get(name), self._tasks.pop(name, None)
        if conn is not None:
            conn.stop()
        if task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), CLOSE_TIMEOUT_S)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._changed()

    async def roots_changed(self) -> None:  # req: MA1
        """Every ready server told that its roots changed."""
        await asyncio.gather(*(c.roots_changed() for c in list(self._connections.values())))

    async def aclose(self) -> None:  # req: MC8
        await asyncio.gather(*(self._stop(name) for name in list(self._tasks)))

    # -- state -----------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Called on every status or tool-list change (for a live `/mcp` view)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _changed(self) -> None:
        self._tools = None
        for listener in list(self._listeners):
            listener()

    def names(self) -> list[str]:
        return list(self._configs)

    def status(self, name: str) -> ServerStatus | None:
        config = self._configs.get(name)
        if config is None:
            return None
        conn = self._connections.get(name)
        if conn is None:
            return ServerStatus(name, config.kind, "stopped", (), None, None)
        tools = tuple(qualified_name(name, t.name) for t in conn.tools)
        not_offered: tuple[str, ...] = ()
        if conn.state == "ready":
            # The tools the model is offered, not every one listed: `/mcp` shows what a call
            # can reach, and says why the others are left out.
            self.tools()  # the offer, rebuilt when stale
            tools = tuple(t.name for t in self._tools or () if t.server == name)
            not_offered = tuple(p.line for p in self._not_offered if name in p.servers)
        return ServerStatus(
            name,
            config.kind,
            conn.state,
            tools,
            conn.last_error,
            conn.instructions,
            conn.task_only,
            tuple(conn.requests.logs) if conn.requests is not None else (),
            not_offered,
        )

    def statuses(self) -> list[ServerStatus]:
        return [s for s in (self.status(n) for n in self._configs) if s is not None]

    # -- ToolProvider ----------------------------------------------------------------------

    # -- resources and prompts ----------------------------------------------------------------

    def resources(self, server: str | None = None) -> list[tuple[str, RemoteResource]]:  # req: MO3
        """(server, resource) of every ready server, or of one."""
        return [
            (name, resource)
            for name, conn in self._connections.items()
            if conn.state == "ready" and server in (None, name)
            for resource in conn.lists.resources
        ]

    # req: MA6
    def templates(self, server: str | None = None) -> list[tuple[str, ResourceTemplate]]:
        """(server, resource template) of every ready server, or of one."""
        return [
            (name, template)
            for name, conn in self._connections.items()
            if conn.state == "ready" and server in (None, name)
            for template in conn.lists.templates
        ]

    def offers_resources(self) -> bool:
        return any(c.state == "ready" and c.lists.has_resources for c in self._connections.values())

    async def read_resource(self, server: str, uri: str) -> ToolResult:  # req: MO3
        conn = self._connections.get(server)
        session = conn.session() if conn is not None else None
        if conn is None or session is None:
            known = ", ".join(self._configs) or "none"
            return error_result(f"MCP server {server!r} is not running (servers: {known})")
        from wave_tui.mcp.resources import read_resource

        with conn.open_request():
            return await read_resource(session, server, uri, self._call_timeout)

    def prompts(self) -> list[tuple[str, RemotePrompt]]:  # req: MO4
        return [
            (name, prompt)
            for name, conn in self._connections.items()
            if conn.state == "ready"
            for prompt in conn.lists.prompts
        ]

    async def get_prompt(  # req: MO4
        self, server: str, prompt: str, args: dict[str, str]
    ) -> tuple[str | None, str | None]:
        conn = self._connections.get(server)
        session = conn.session() if conn is not None else None
        if conn is None or session is None:
            return None, f"MCP server {server!r} is not running"
        from wave_tui.mcp.resources import get_prompt

        with conn.open_request():
            return await get_prompt(session, server, prompt, args, self._call_timeout)

    def tools(self) -> list[Tool]:  # req: MC3
        if self._tools is None:
            listed = [
                (name, remote)
                for name, conn in self._connections.items()
                if conn.state == "ready"
                for remote in conn.tools
            ]
            offered, self._not_offered = offered_tools(listed)
            for problem in self._not_offered:
                if problem.line not in self._told:
                    self._told.add(problem.line)
                    self._notify(problem.line)
            self._tools = [McpTool(name, remote, self.call) for name, remote in offered]
        return list(self._tools)

    async def call(self, server: str, tool: str, args: dict[str, Any]) -> ToolResult:
        conn = self._connections.get(server)
        if conn is None:
            return error_result(f"MCP server {server!r} is not running.")
        return await conn.call(tool, args, f"{server}/{tool}")

    # -- the dynamic system block -----------------------------------------------------------

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        blocks = [
            f"## {name}\n{conn.instructions.strip()}"
            for name, conn in sorted(self._connections.items())
            if conn.state == "ready" and conn.instructions and conn.instructions.strip()
        ]
        return ["\n\n".join([INSTRUCTIONS_HEADER, *blocks])] if blocks else []
