"""The parts' APIs of an `Agent` (004 §8–§11): MCP servers, memory rules, background work,
slash commands, the plan file and the worktree hook.

Each reads or drives the part of the session that owns it (the MCP manager, the rule
discovery, the background manager, the command registry, the hooks); `_watch_parts` turns the
changes of the MCP servers and the background work into their callbacks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from wave_tui.config.records import record
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.features.user_hooks.engine import UserHooks
from wave_tui.mcp.manager import McpManager, ServerStatus
from wave_tui.memory.rules import discover_rules
from wave_tui.sdk.agent_state import AgentState, read_or_empty
from wave_tui.sdk.background import (
    BackgroundOutput,
    BackgroundTaskInfo,
    ForegroundTask,
    read_output,
    stop_task,
    task_info,
)
from wave_tui.sdk.slash_commands import SlashCommand, SlashCommands, SlashHandler


@record
class McpServerStatus:
    """`get_mcp_servers`: one configured MCP server now; `tools` are qualified names
    (`mcp__server__tool`), `instructions` what its initialize answer said."""

    name: str
    kind: Literal["stdio", "http", "sse"]
    status: Literal["starting", "ready", "needs-auth", "failed", "stopped"]
    tools: tuple[str, ...]
    error: str | None
    instructions: str | None


def _server_status(status: ServerStatus) -> McpServerStatus:
    return McpServerStatus(
        status.name,
        status.kind,
        status.state,
        status.tools,
        status.last_error,
        status.instructions,
    )


@record
class MemoryRule:
    """A memory rule in force: `paths` its patterns (empty: always loaded), `activated_by`
    the file that activated a conditional rule."""

    id: str
    path: Path
    scope: Literal["project", "user"]
    body: str
    paths: tuple[str, ...]
    priority: int
    activated_by: str | None


class AgentExtras(AgentState):
    """The part of `Agent` that is MCP servers, memory rules, slash commands, background work
    and the callbacks of the parts that own them (see `Agent`)."""

    # req: SX5
    def _watch_parts(self) -> list[Callable[[], None]]:
        """`on_background_tasks_change` and `on_mcp_servers_change` from the parts that own
        those lists; the unsubscribe functions are returned."""
        service = self._agent()
        unwatch = [
            service.background.subscribe(
                lambda tasks: self._callbacks.call(
                    "on_background_tasks_change", [task_info(t) for t in tasks]
                )
            )
        ]
        wiring = mcp_of(service)
        manager = wiring.manager if wiring is not None else None
        if manager is not None:
            unwatch.append(
                manager.subscribe(
                    lambda: self._callbacks.call(
                        "on_mcp_servers_change",
                        [_server_status(s) for s in manager.statuses()],
                    )
                )
            )
        return unwatch

    # -- memory (004 §9) and the plan file (§11) --------------------------------------------
    # req: SX8
    async def get_combined_memory(self) -> str:
        """The user's and the project's AGENTS.md, user first, blank-line separated."""
        self._check()
        paths = self._agent().paths
        user, project = await asyncio.gather(
            asyncio.to_thread(read_or_empty, paths.user_agents_md),
            asyncio.to_thread(read_or_empty, paths.project_agents_md),
        )
        return "\n\n".join(part.strip() for part in (user, project) if part.strip())

    # req: SX8
    def get_allowed_rules(self) -> list[MemoryRule]:
        """The project's memory rules in force now (`.wave/rules/`): those without `paths`,
        and the conditional ones a file of this conversation activated."""
        return self._rules("project")

    def get_user_allowed_rules(self) -> list[MemoryRule]:
        """The user's memory rules in force now (`~/.wave/rules/`), likewise."""
        return self._rules("user")

    def _rules(self, scope: Literal["project", "user"]) -> list[MemoryRule]:
        self._check()
        service = self._agent()
        activations = service.rule_activations() or {}
        found = discover_rules(service.paths, lambda _problem: None)
        return [
            MemoryRule(
                r.id,
                r.path,
                r.scope,
                r.body,
                r.patterns,
                r.priority,
                activations.get(r.id, ("",))[0] or None,
            )
            for r in found.active
            if r.scope == scope and (r.status == "always" or r.id in activations)
        ]

    # req: SX10
    def get_plan_file_path(self) -> Path:
        """Where this session's plan is written (`ExitPlanMode`)."""
        self._check()
        service = self._agent()
        return service.paths.plan_file(service.session_id)

    # -- background work (004 §10) ------------------------------------------------------------
    # req: SX9
    @property
    def background_tasks(self) -> list[BackgroundTaskInfo]:
        """The session's background commands and subagents, running and ended."""
        self._check()
        return [task_info(t) for t in self._agent().background.tasks()]

    async def get_background_shell_output(
        self, task_id: str, offset: int = 0, limit: int | None = None
    ) -> BackgroundOutput | None:
        """Lines of a background command's output; None when no command has that id."""
        self._check()
        return await read_output(self._agent().background, task_id, offset, limit, "bash")

    async def kill_background_shell(self, task_id: str) -> bool:
        """Kill a running background command (its process group); False when none runs
        under that id."""
        self._check()
        return await stop_task(self._agent().background, task_id, "bash")

    async def get_background_task_output(
        self, task_id: str, offset: int = 0, limit: int | None = None
    ) -> BackgroundOutput | None:
        """Lines of any background task's output (a subagent's progress while it runs)."""
        self._check()
        return await read_output(self._agent().background, task_id, offset, limit, None)

    async def stop_background_task(self, task_id: str) -> bool:
        """Stop a running background command or subagent; False when none runs under that
        id."""
        self._check()
        return await stop_task(self._agent().background, task_id, None)

    # -- foreground work (004 §10) ------------------------------------------------------------
    # req: SX9
    def register_foreground_task(self, task: ForegroundTask) -> None:
        """Register the program's own foreground work: `background_current_task()` (and
        Ctrl+B in the app) calls its `background_handler` while it is the newest one."""
        self._check()
        if not isinstance(task, ForegroundTask):
            raise TypeError(f"task must be a ForegroundTask, not {type(task).__name__}")
        self._agent().background.foreground.register(task)

    def unregister_foreground_task(self, task_id: str) -> bool:
        """Forget a foreground task (its work ended); False when none has that id."""
        self._check()
        return self._agent().background.foreground.unregister(task_id)

    async def background_current_task(self) -> str | None:
        """Move the newest foreground task to the background: a Bash command or subagent the
        model runs now answers its tool call at once with a task id and output file (as
        `run_in_background` does), the turn goes on, and its completion is announced. Returns
        the task's id, None when nothing runs in the foreground."""
        self._check()
        return await self._session.background_current_task()

    # -- MCP servers (004 §8) -----------------------------------------------------------------
    def _mcp(self) -> McpManager | None:
        self._check()
        wiring = mcp_of(self._agent())
        return wiring.manager if wiring is not None else None

    # req: SX7
    def get_mcp_servers(self) -> list[McpServerStatus]:
        """Every configured MCP server and its state ("starting", "ready", "needs-auth",
        "failed", "stopped"), its tools and the instructions it gave."""
        manager = self._mcp()
        return [_server_status(s) for s in manager.statuses()] if manager is not None else []

    async def connect_mcp_server(self, name: str) -> McpServerStatus:
        """(Re)connect a configured server; returns once it is ready or failed. ValueError
        for a name no configuration has."""
        manager = self._mcp()
        status = await manager.restart(name) if manager is not None else None
        if status is None:
            raise ValueError(f"no MCP server named {name!r} is configured")
        return _server_status(status)

    async def disconnect_mcp_server(self, name: str) -> McpServerStatus:
        """Stop a server (its tools leave the next request); `connect_mcp_server` brings it
        back. ValueError for a name no configuration has."""
        manager = self._mcp()
        status = await manager.disconnect(name) if manager is not None else None
        if status is None:
            raise ValueError(f"no MCP server named {name!r} is configured")
        return _server_status(status)

    # req: SX10
    async def trigger_worktree_remove_hook(self, worktree_path: str | Path) -> bool:
        """Run the WorktreeRemove hooks for a worktree (before a program removes it); True
        when a hook ran."""
        self._check()
        hooks = self._agent().extensions.of_type(UserHooks)
        path = await asyncio.to_thread(lambda: Path(worktree_path).expanduser().resolve())
        return hooks is not None and await hooks.run_worktree_remove(path.name, path)

    # -- slash commands (004 §11) ------------------------------------------------------------
    def _commands(self) -> SlashCommands:
        self._check()
        return SlashCommands(self._agent().commands)

    # req: SX10
    def get_slash_commands(self) -> list[SlashCommand]:
        """Every command of the session (built-ins, command files, skills, MCP prompts and the
        program's own), as `/help` lists them."""
        return self._commands().all()

    def has_slash_command(self, name: str) -> bool:
        """Whether `/name` is a command (the slash is optional)."""
        return self._commands().has(name)

    def register_slash_command(
        self, name: str, description: str, handler: SlashHandler, argument_hint: str = ""
    ) -> None:
        """Add `/name`: `handler(args)` (sync or async) runs when a message `/name args` is
        sent, and what it returns is the command's output. A later registration of the same
        name replaces it; a built-in cannot be replaced (ValueError)."""
        self._commands().register(name, description, handler, argument_hint)

    async def reload_custom_commands(self) -> list[SlashCommand]:
        """Read the command files again (they are also read again at every use) and return
        the custom commands found."""
        commands = self._commands()
        return await asyncio.to_thread(commands.custom)

    def get_custom_command(self, name: str) -> SlashCommand | None:
        return self._commands().custom_one(name)

    def get_custom_commands(self) -> list[SlashCommand]:
        """The commands of the project's, the user's and the plugins' command files."""
        return self._commands().custom()
