"""`AgentSession`: the one object the front ends (`tui`, `cli`) talk to (U1).

It wraps the agent service (or none, when the agent could not start: the memory browser and the
settings still work) and owns the lifecycle, one event stream and the conversation: send /
abort / compact / clear / the queue, a `wave -p` run and its report, and a typed `AgentStatus`.
Every other concern is a part of its own, an attribute the front ends call directly:
`session.memory` (the memory browser), `session.settings` (the settings screen, the endpoint, the
model picker), `session.permissions` (the permission dialog, the mode, trust), `session.input`
(the input line) and `session.picker` (the resume picker). A part is made, and its module
imported, when first used: `wave -p` runs a turn with the input part only. Events that carry
state — `StatusChanged`, `MemoryChanged`, `ExtractionFinished` — mean a front end never reads
the service's internals nor writes a file itself. The data types a front end needs are in
`session/types.py`; this module exports the session and the few functions the front ends call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING

from wave_tui.agent import events as ev
from wave_tui.agent.agent_options import AgentOptions
from wave_tui.agent.attachments import shown_text
from wave_tui.agent.commands import parse_command
from wave_tui.agent.local_shell import shell_run_of
from wave_tui.agent.service import AgentService, Approver, TurnResult, key_argument
from wave_tui.agent.status import AgentStatus
from wave_tui.agent.tool_executor import stored_tool_result
from wave_tui.config.clock import Clock
from wave_tui.config.lazy_exports import lazy_getattr
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.features.tasks.parts import TaskFeatures
from wave_tui.llm.types import Message
from wave_tui.permissions.rules import parse_rule_list
from wave_tui.session.core import SessionCore, utc_now
from wave_tui.session.factory import create_service
from wave_tui.session.inputs import InputAccess
from wave_tui.session.local_endpoint import plan_local_endpoint, prepare_local_endpoint
from wave_tui.session.memory_access import MemoryAccess, preview_body, stale_reminder
from wave_tui.session.run_report import RunInfo, RunReport, RunUsage, counted, run_report
from wave_tui.session.status_tracker import StatusTracker

if TYPE_CHECKING:
    from wave_tui.agent.compaction_flow import PreparedCompaction
    from wave_tui.features.memory.context_report import ContextReport
    from wave_tui.features.worktrees.git_worktrees import worktree_name_problem
    from wave_tui.session.browser import MemoryBrowserAccess
    from wave_tui.session.daemon.remote import attach_session
    from wave_tui.session.editable_settings import SettingsAccess
    from wave_tui.session.grants import PermissionAccess
    from wave_tui.session.mcp_admin import (
        ADD_SCOPES,
        McpAdminError,
        ServerEntry,
        ServerHealth,
        add_server,
        authorization_stored,
        authorize,
        configured,
        find,
        logout,
        new_entry,
        parse_pairs,
        remove_server,
        server_health,
    )
    from wave_tui.session.memory_audit import audit_session
    from wave_tui.session.memory_check import check_memory
    from wave_tui.session.memory_consolidate import consolidate, consolidation_plan
    from wave_tui.session.memory_mode import current_settings, mode_line, set_memory_mode
    from wave_tui.session.memory_review import MemoryReview, near_duplicates
    from wave_tui.session.picker import SessionPicker
    from wave_tui.session.plugins import PluginAccess
    from wave_tui.session.rewind import ProjectSessions, SessionRewind
    from wave_tui.session.session_summaries import size_text
    from wave_tui.session.workflow_runs import (
        WorkflowAgentInfo,
        WorkflowPhaseInfo,
        WorkflowRunInfo,
        WorkflowRunsAccess,
    )
    from wave_tui.tools.tasks.store import Task

# What only the app's screens use loads when a screen asks for it, not with `wave -p`.
_LAZY = {
    "MemoryReview": "wave_tui.session.memory_review",
    "near_duplicates": "wave_tui.session.memory_review",
    "check_memory": "wave_tui.session.memory_check",
    "audit_session": "wave_tui.session.memory_audit",
    "current_settings": "wave_tui.session.memory_mode",
    "mode_line": "wave_tui.session.memory_mode",
    "set_memory_mode": "wave_tui.session.memory_mode",
    "consolidate": "wave_tui.session.memory_consolidate",
    "consolidation_plan": "wave_tui.session.memory_consolidate",
    "size_text": "wave_tui.session.session_summaries",
    "PluginAccess": "wave_tui.session.plugins",
    "ProjectSessions": "wave_tui.session.rewind",
    "worktree_name_problem": "wave_tui.features.worktrees.git_worktrees",
    "ADD_SCOPES": "wave_tui.session.mcp_admin",
    "McpAdminError": "wave_tui.session.mcp_admin",
    "ServerEntry": "wave_tui.session.mcp_admin",
    "add_server": "wave_tui.session.mcp_admin",
    "authorization_stored": "wave_tui.session.mcp_admin",
    "server_health": "wave_tui.session.mcp_admin",
    "ServerHealth": "wave_tui.session.mcp_admin",
    "authorize": "wave_tui.session.mcp_admin",
    "configured": "wave_tui.session.mcp_admin",
    "find": "wave_tui.session.mcp_admin",
    "logout": "wave_tui.session.mcp_admin",
    "new_entry": "wave_tui.session.mcp_admin",
    "parse_pairs": "wave_tui.session.mcp_admin",
    "remove_server": "wave_tui.session.mcp_admin",
    "WorkflowAgentInfo": "wave_tui.session.workflow_runs",
    "attach_session": "wave_tui.session.daemon.remote",
    "WorkflowPhaseInfo": "wave_tui.session.workflow_runs",
    "WorkflowRunInfo": "wave_tui.session.workflow_runs",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


Listener = Callable[[ev.AgentEvent], None]

__all__ = [
    "ADD_SCOPES",
    "AgentSession",
    "McpAdminError",
    "MemoryAccess",
    "MemoryReview",
    "PluginAccess",
    "ProjectSessions",
    "ServerEntry",
    "ServerHealth",
    "WorkflowAgentInfo",
    "WorkflowPhaseInfo",
    "WorkflowRunInfo",
    "add_server",
    "attach_session",
    "audit_session",
    "authorization_stored",
    "authorize",
    "check_memory",
    "configured",
    "consolidate",
    "consolidation_plan",
    "create_service",
    "create_session",
    "current_settings",
    "find",
    "key_argument",
    "logout",
    "mode_line",
    "near_duplicates",
    "new_entry",
    "parse_command",
    "parse_pairs",
    "parse_rule_list",
    "plan_local_endpoint",
    "prepare_local_endpoint",
    "preview_body",
    "remove_server",
    "server_health",
    "set_memory_mode",
    "shell_run_of",
    "shown_text",
    "size_text",
    "stale_reminder",
    "stored_tool_result",
    "worktree_name_problem",
]


class AgentSession:
    """The facade: lifecycle, events and the conversation here; every other concern in a part
    (`memory`, `settings`, `permissions`, `input`, `picker`) that the front ends call."""

    def __init__(
        self,
        service: AgentService | None,
        *,
        store: SettingsStore | None = None,
        clock: Clock = utc_now,
    ) -> None:
        if store is None:
            if service is None:
                raise ValueError("an AgentSession needs a service or a settings store")
            store = service.store
        paths = service.paths if service is not None else store.paths
        self._listeners: list[Listener] = []
        self._core = SessionCore(service, store, paths, clock, self._emit, self._status_changed)
        self.input = InputAccess(self._core)
        self._status = StatusTracker(self._core)
        self._unsubscribe: list[Callable[[], None]] = []
        self._subscribe_to(service, store)

    # -- the parts -----------------------------------------------------------------------------
    @cached_property
    def memory(self) -> MemoryBrowserAccess:
        from wave_tui.session.browser import MemoryBrowserAccess

        return MemoryBrowserAccess(self._core)

    @cached_property
    def settings(self) -> SettingsAccess:
        from wave_tui.session.editable_settings import SettingsAccess

        return SettingsAccess(self._core)

    @cached_property
    def permissions(self) -> PermissionAccess:
        from wave_tui.session.grants import PermissionAccess

        return PermissionAccess(self._core)

    @cached_property
    def picker(self) -> SessionPicker:
        from wave_tui.session.picker import SessionPicker

        return SessionPicker(self._core)

    @cached_property
    def rewind(self) -> SessionRewind:
        from wave_tui.session.rewind import SessionRewind

        return SessionRewind(self._core)

    @cached_property
    def workflows(self) -> WorkflowRunsAccess:
        from wave_tui.session.workflow_runs import WorkflowRunsAccess

        return WorkflowRunsAccess(self._core)

    def _subscribe_to(self, service: AgentService | None, store: SettingsStore) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = (
            [service.subscribe(self._on_service_event)] if service is not None else []
        )
        self._unsubscribe.append(store.subscribe(lambda _settings: self._settings_changed()))

    # req: UX14
    def attach(self, service: AgentService) -> None:
        """The agent that was still starting (a local model) is ready: chat from now on."""
        self._core.service = service
        self._core.store = service.store
        self._subscribe_to(service, service.store)
        self._status_changed()

    @classmethod
    def offline(
        cls,
        paths: WavePaths,
        clock: Clock = utc_now,
        environ: Mapping[str, str] | None = None,
    ) -> AgentSession:
        """A session without an agent (it could not start, or `wave memory …`): memory and
        settings only."""
        return cls(None, store=SettingsStore(paths, environ), clock=clock)

    @property
    def service(self) -> AgentService | None:
        return self._core.service

    @property
    def store(self) -> SettingsStore:
        return self._core.store

    @property
    def paths(self) -> WavePaths:
        return self._core.paths

    @property
    def clock(self) -> Clock:
        return self._core.clock

    # -- lifecycle -----------------------------------------------------------------------------
    @property
    def available(self) -> bool:
        """True when an agent runs behind this session (chat is possible)."""
        return self.service is not None

    # req: MC2
    def start(self) -> None:
        """Restore the session (--continue / --resume) and start its MCP servers. Raises
        FileNotFoundError."""
        self.restore()
        mcp = mcp_of(self.service) if self.service is not None else None
        if mcp is not None:
            mcp.start()

    def restore(self) -> None:
        """Restore the session only, no MCP server started (`wave context`). Raises
        FileNotFoundError."""
        if self.service is not None:
            self.service.start()
            if self._status.restored():
                self._status_changed()

    def conversation_shown(self) -> None:
        """The front end has shown `messages()`; a session whose conversation runs elsewhere
        (a daemon session, `wave --attach`) sends its live events from now on, after it."""

    async def wait_tools_started(self) -> None:
        """Until the MCP servers finished starting (`wave -p`, before the first request)."""
        mcp = mcp_of(self.service) if self.service is not None else None
        if mcp is not None:
            await mcp.wait_started()

    # req: FH2
    async def enter_start_worktree(self) -> str | None:
        """`--worktree NAME`: enter it now, after `start()` and before the first frame shows
        the status (and before `!cmd`, `@file` or a turn); the problem as one line, or None."""
        from wave_tui.features.worktrees.session import WorktreeSession

        worktrees = (
            self.service.extensions.of_type(WorktreeSession) if self.service is not None else None
        )
        if worktrees is None:
            return None
        problem = await worktrees.enter_start()
        if worktrees.current_name is not None:
            self._status_changed()
        return problem

    async def close(self) -> None:
        """Abort the turn and wait for background work (an extraction's writes, C4)."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        if self.service is not None:
            await self.service.destroy()

    # req: UX9
    def cancel_background(self) -> None:
        """Stop background work now (quit without waiting); a stopped extraction is recorded
        as cancelled."""
        if self.service is not None:
            extraction = self.service.extensions.of_type(ExtractionHook)
            if extraction is not None:
                extraction.cancel()

    # -- events --------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: ev.AgentEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _on_service_event(self, event: ev.AgentEvent) -> None:
        changed = self._status.saw(event)
        self._emit(event)
        if changed:
            self._status_changed()

    # req: UX8
    def _settings_changed(self) -> None:
        if self.service is not None:
            self.service.apply_current_settings()
        self._status_changed()

    def _status_changed(self) -> None:
        self._emit(ev.StatusChanged(self.status()))

    # -- conversation --------------------------------------------------------------------------
    async def send(self, text: str) -> None:
        """Queue a message (or a slash command, or a `!cmd`); they run one after another, each
        `!cmd` as a turn of its own without the model (Esc stops it). `@path` files are
        attached."""
        await self._core.agent().send(self.input.with_attachments(text))

    async def run_turn(self, text: str) -> TurnResult:
        """Run one message (or command, or `!cmd`) now and return how it ended (`wave -p`)."""
        return await self._core.agent().run_turn(self.input.with_attachments(text))

    async def run(self, text: str) -> RunReport:
        """A `wave -p` run: one message (or command) now, reported with the usage of its
        replies, the requests it made and the session's id."""
        service = self._core.agent()
        usage = RunUsage()

        def count(event: ev.AgentEvent) -> None:
            nonlocal usage
            if isinstance(event, ev.AssistantFinished):
                usage = counted(usage, event.message, service.last_request)

        unsubscribe = self.subscribe(count)
        try:
            result = await self.run_turn(text)
        finally:
            unsubscribe()
        return run_report(
            result, usage, session_id=service.session_id, num_turns=service.model_requests
        )

    def run_info(self) -> RunInfo:
        """What a `wave -p` run announces at its start (`stream-json`'s init line)."""
        service = self._core.agent()
        return RunInfo(
            session_id=service.session_id,
            model=service.model or "",
            cwd=service.paths.project_root,
            tools=tuple(t.name for t in service.all_tools()),
        )

    def abort(self) -> None:
        if self.service is not None:
            self.service.abort()

    # req: SX9
    async def background_current_task(self) -> str | None:
        """Move the foreground Bash command or subagent now running to the background (its
        tool call answers at once, the turn goes on); its task id, or None when none runs."""
        if self.service is None:
            return None
        return await self.service.background.foreground.background_current()

    async def compact(self, focus: str | None = None) -> bool:
        return await self._core.agent().compact(focus)

    # req: MM7
    async def prepare_compaction(self, focus: str | None = None) -> PreparedCompaction | None:
        """`/compact` in the app: the summary made, shown before it is applied."""
        return await self._core.agent().compaction.prepare_preview(focus)

    async def apply_compaction(self, prepared: PreparedCompaction) -> bool:
        return await self._core.agent().compaction.apply_preview(prepared)

    def clear(self) -> None:
        self._core.agent().clear()
        self._status_changed()

    async def wait_idle(self) -> None:
        if self.service is not None:
            await self.service.wait_idle()

    def unqueue_last(self) -> str | None:
        """Take back the last queued message (to edit it); None when nothing waits."""
        text = self.service.unqueue_last() if self.service is not None else None
        if text is not None:
            self._status_changed()
        return text

    def clear_queue(self) -> None:
        if self.service is not None and self.service.clear_queue():
            self._status_changed()

    def messages(self) -> list[Message]:
        """The conversation so far (a resumed session's messages, for the chat view)."""
        return list(self.service.messages) if self.service is not None else []

    def context_report(self) -> ContextReport | None:
        """What the next request costs per source (MX2: `/context`, `wave context`); None
        without an agent."""
        from wave_tui.features.memory.context_report import build_context_report

        return build_context_report(self.service) if self.service is not None else None

    async def tasks(self) -> list[Task]:
        """The session's task list (the task panel's first state; `TasksChanged` follows)."""
        work = self.service.extensions.of_type(TaskFeatures) if self.service is not None else None
        return await work.store.all_tasks() if work is not None else []

    def status(self) -> AgentStatus:
        return self._status.status()

    def scheduled_job_ids(self) -> list[str]:
        """The ids of the session's scheduled jobs (`/loop`, CronCreate), next run first."""
        from wave_tui.features.cron.scheduler import CronScheduler

        cron = self.service.extensions.of_type(CronScheduler) if self.service else None
        return [job.id for job in cron.listing()] if cron is not None else []

    # req: FH4
    def stop_scheduled_job(self, job_id: str) -> str | None:
        """End one scheduled job (`d` in `/tasks`); what it ran, or None when it was gone."""
        from wave_tui.features.cron.scheduler import CronScheduler

        cron = self.service.extensions.of_type(CronScheduler) if self.service else None
        if cron is None or job_id not in cron.jobs:
            return None
        return cron.delete(job_id).prompt


def create_session(
    options: AgentOptions,
    *,
    approver: Approver | None = None,
    clock: Clock = utc_now,
    store: SettingsStore | None = None,
) -> AgentSession:
    """The fully wired agent (memory hooks, extraction fork) behind a session; `store` is the
    settings a program gives on top of the files (the SDK's `hooks` and `mcp_servers`)."""
    return AgentSession(create_service(options, approver=approver, store=store), clock=clock)
