"""`AgentSession`: the one object the front ends (`tui`, `cli`) talk to (U1).

It wraps the agent service (or none, when the agent could not start: the memory browser and the
settings still work) and owns the lifecycle, one event stream and the conversation: send /
abort / compact / clear / the queue, and a typed `AgentStatus` (`session_status.py`). Memory,
settings, permissions and trust, the input line and the resume picker are parts of their own
(`session_parts.py`), reached by the same method names. Events that carry state —
`StatusChanged`, `MemoryChanged`, `ExtractionFinished` — mean a front end never reads the
service's internals nor writes a file itself. The types a front end needs are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from wave_tui.agent import events as ev
from wave_tui.agent.agent_options import AgentOptions
from wave_tui.agent.attachments import shown_text, without_attachments
from wave_tui.agent.commands import parse_command
from wave_tui.agent.local_shell import ShellRun, shell_run_of
from wave_tui.agent.service import AgentService, Approver, TurnResult, key_argument
from wave_tui.agent.sessions import SessionInfo
from wave_tui.agent.status import AgentStatus
from wave_tui.agent.tool_executor import stored_tool_result
from wave_tui.config.clock import Clock
from wave_tui.config.paths import WavePaths
from wave_tui.config.schema import PERMISSION_MODES
from wave_tui.config.settings import SettingsStore
from wave_tui.config.trust import NOT_TRUSTED_YET, TrustRequested
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.features.tasks.parts import TaskFeatures
from wave_tui.llm.types import Message
from wave_tui.permissions.rules import parse_rule_list
from wave_tui.session.core import SessionCore, utc_now
from wave_tui.session.factory import create_service
from wave_tui.session.local_endpoint import (
    LocalEndpoint,
    LocalModelError,
    LocalPlan,
    LocalUnavailable,
    plan_local_endpoint,
    prepare_local_endpoint,
)
from wave_tui.session.memory_access import (
    AddResult,
    EntryError,
    InboxError,
    MemoryAccess,
    MemoryEntry,
    MemoryScope,
    PendingWrite,
    RevertResult,
    Run,
    RunError,
    preview_body,
    stale_reminder,
)
from wave_tui.session.parts import SessionParts
from wave_tui.session.status_tracker import StatusTracker
from wave_tui.tools.ask_user import Question, QuestionAnswer, QuestionOption
from wave_tui.tools.plan_mode import PlanDecision
from wave_tui.tools.tasks.store import Task

if TYPE_CHECKING:
    from wave_tui.features.memory.context_report import build_context_report
    from wave_tui.permissions.policy import GrantOption
    from wave_tui.session.editable_settings import EditableSettings
    from wave_tui.session.endpoint_settings import EndpointInUse, EndpointSettings, SettingInUse
    from wave_tui.session.memory_review import MemoryReview, ReviewError, near_duplicates
    from wave_tui.session.ui_queries import (
        CommandChoice,
        ConnectionCheck,
        ModelChoice,
        ModelMenu,
        PermissionPreview,
        PermissionState,
        SessionSummary,
        size_text,
    )

# What only the app's screens use loads when a screen asks for it, not with `wave -p`.
_LAZY = {
    "build_context_report": "wave_tui.features.memory.context_report",
    "EndpointInUse": "wave_tui.session.endpoint_settings",
    "EndpointSettings": "wave_tui.session.endpoint_settings",
    "SettingInUse": "wave_tui.session.endpoint_settings",
    "EditableSettings": "wave_tui.session.editable_settings",
    "GrantOption": "wave_tui.permissions.policy",
    "MemoryReview": "wave_tui.session.memory_review",
    "ReviewError": "wave_tui.session.memory_review",
    "near_duplicates": "wave_tui.session.memory_review",
    "CommandChoice": "wave_tui.session.ui_queries",
    "ConnectionCheck": "wave_tui.session.ui_queries",
    "ModelChoice": "wave_tui.session.ui_queries",
    "ModelMenu": "wave_tui.session.ui_queries",
    "PermissionPreview": "wave_tui.session.ui_queries",
    "PermissionState": "wave_tui.session.ui_queries",
    "SessionSummary": "wave_tui.session.ui_queries",
    "size_text": "wave_tui.session.ui_queries",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


Listener = Callable[[ev.AgentEvent], None]

__all__ = [
    "NOT_TRUSTED_YET",
    "PERMISSION_MODES",
    "AddResult",
    "AgentOptions",
    "AgentService",
    "AgentSession",
    "AgentStatus",
    "CommandChoice",
    "ConnectionCheck",
    "EditableSettings",
    "EndpointInUse",
    "EndpointSettings",
    "EntryError",
    "GrantOption",
    "InboxError",
    "LocalEndpoint",
    "LocalModelError",
    "LocalPlan",
    "LocalUnavailable",
    "MemoryAccess",
    "MemoryEntry",
    "MemoryReview",
    "MemoryScope",
    "Message",
    "ModelChoice",
    "ModelMenu",
    "PendingWrite",
    "PermissionPreview",
    "PermissionState",
    "PlanDecision",
    "Question",
    "QuestionAnswer",
    "QuestionOption",
    "RevertResult",
    "ReviewError",
    "Run",
    "RunError",
    "SessionInfo",
    "SessionSummary",
    "SettingInUse",
    "ShellRun",
    "Task",
    "TrustRequested",
    "TurnResult",
    "build_context_report",
    "create_service",
    "create_session",
    "key_argument",
    "near_duplicates",
    "parse_command",
    "parse_rule_list",
    "plan_local_endpoint",
    "prepare_local_endpoint",
    "preview_body",
    "shell_run_of",
    "shown_text",
    "size_text",
    "stale_reminder",
    "stored_tool_result",
    "without_attachments",
]


class AgentSession(SessionParts):
    """The facade: lifecycle, events and the conversation here; every other concern in a part
    of `SessionParts`, called by the names the front ends know."""

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
        super().__init__(
            SessionCore(service, store, paths, clock, self._emit, self._status_changed)
        )
        self._status = StatusTracker(self._core)
        self._unsubscribe: list[Callable[[], None]] = []
        self._subscribe_to(service, store)

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
        """Restore the session (--continue / --resume). Raises FileNotFoundError."""
        if self.service is not None:
            self.service.start()
            if self._status.restored():
                self._status_changed()
            mcp = mcp_of(self.service)
            if mcp is not None:
                mcp.start()

    async def wait_tools_started(self) -> None:
        """Until the MCP servers finished starting (`wave -p`, before the first request)."""
        mcp = mcp_of(self.service) if self.service is not None else None
        if mcp is not None:
            await mcp.wait_started()

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
        await self._core.agent().send(self.inputs.with_attachments(text))

    async def run_turn(self, text: str) -> TurnResult:
        """Run one message (or command, or `!cmd`) now and return how it ended (`wave -p`)."""
        return await self._core.agent().run_turn(self.inputs.with_attachments(text))

    def abort(self) -> None:
        if self.service is not None:
            self.service.abort()

    async def compact(self, focus: str | None = None) -> bool:
        return await self._core.agent().compact(focus)

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

    def context_report(self) -> str | None:
        """What the next request costs per source, as `/context` prints it (MX2); None without
        an agent."""
        from wave_tui.features.memory.context_report import build_context_report

        return build_context_report(self.service).render() if self.service is not None else None

    async def tasks(self) -> list[Task]:
        """The session's task list (the task panel's first state; `TasksChanged` follows)."""
        work = self.service.extensions.of_type(TaskFeatures) if self.service is not None else None
        return await work.store.all_tasks() if work is not None else []

    def status(self) -> AgentStatus:
        return self._status.status()


def create_session(
    options: AgentOptions, *, approver: Approver | None = None, clock: Clock = utc_now
) -> AgentSession:
    """The fully wired agent (memory hooks, extraction fork) behind a session."""
    return AgentSession(create_service(options, approver=approver), clock=clock)
