"""`AgentSession`: the one object the front ends (`tui`, `cli`) talk to (U1).

It wraps the agent service (or none, when the agent could not start: the memory browser and the
settings still work) and owns everything a front end needs: send / abort / compact / clear /
commands, a typed `AgentStatus`, memory list / show / add / delete, settings read / save, the
sessions of the project for a resume picker, and one event stream. Events that carry state —
`StatusChanged`, `MemoryChanged`, `ExtractionFinished` — mean a front end never reads the
service's internals nor writes a file itself.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wave_tui.agent import events as ev
from wave_tui.agent import project_trust
from wave_tui.agent.commands import CommandOutput, CommandResult, parse_command
from wave_tui.agent.extraction import ExtractionHook
from wave_tui.agent.factory import create_service
from wave_tui.agent.inline_input import (
    attach_files,
    complete_path,
    run_shell,
    shell_command,
    without_attachments,
)
from wave_tui.agent.local_endpoint import (
    LocalEndpoint,
    LocalModelError,
    LocalPlan,
    LocalUnavailable,
    plan_local_endpoint,
    prepare_local_endpoint,
)
from wave_tui.agent.mcp_wiring import mcp_of
from wave_tui.agent.memory_access import (
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
from wave_tui.agent.service import AgentOptions, AgentService, Approver, TurnResult, key_argument
from wave_tui.agent.sessions import SessionInfo, list_sessions
from wave_tui.agent.status import AgentStatus, cache_hit_ratio, context_tokens
from wave_tui.agent.work_features import WorkFeatures
from wave_tui.config.paths import WavePaths
from wave_tui.config.schema import PERMISSION_MODES
from wave_tui.config.settings import (
    EffectiveSettings,
    PermissionMode,
    SettingsStore,
    resolve_max_input_tokens,
    save_user_settings,
)
from wave_tui.config.trust import TrustRequested
from wave_tui.llm.types import Message
from wave_tui.llm.usage import estimate_tokens
from wave_tui.permissions.policy import grant_label
from wave_tui.permissions.rules import parse_rule_list
from wave_tui.tools.ask_user import Question, QuestionAnswer, QuestionOption
from wave_tui.tools.plan_mode import PlanDecision
from wave_tui.tools.tasks.store import Task

if TYPE_CHECKING:
    from wave_tui.agent.context_report import build_context_report
    from wave_tui.agent.endpoint_settings import EndpointSettings
    from wave_tui.agent.memory_review import MemoryReview, ReviewError, near_duplicates
    from wave_tui.agent.ui_queries import (
        CommandChoice,
        ConnectionCheck,
        ModelChoice,
        PermissionPreview,
        PermissionState,
        SessionSummary,
        size_text,
    )

# What only the app's screens use loads when a screen asks for it, not with `wave -p`.
_LAZY = {
    "build_context_report": "wave_tui.agent.context_report",
    "EndpointSettings": "wave_tui.agent.endpoint_settings",
    "MemoryReview": "wave_tui.agent.memory_review",
    "ReviewError": "wave_tui.agent.memory_review",
    "near_duplicates": "wave_tui.agent.memory_review",
    "CommandChoice": "wave_tui.agent.ui_queries",
    "ConnectionCheck": "wave_tui.agent.ui_queries",
    "ModelChoice": "wave_tui.agent.ui_queries",
    "PermissionPreview": "wave_tui.agent.ui_queries",
    "PermissionState": "wave_tui.agent.ui_queries",
    "SessionSummary": "wave_tui.agent.ui_queries",
    "size_text": "wave_tui.agent.ui_queries",
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
Clock = Callable[[], datetime]
# Events after which the status may read differently.
_STATUS_EVENTS = (
    ev.BusyChanged,
    ev.TurnEnded,
    ev.UsageUpdated,
    ev.ErrorOccurred,
    ev.QueueChanged,
    ev.BackgroundChanged,
)

__all__ = [
    "PERMISSION_MODES",
    "AddResult",
    "AgentOptions",
    "AgentService",
    "AgentSession",
    "AgentStatus",
    "CommandChoice",
    "ConnectionCheck",
    "EditableSettings",
    "EndpointSettings",
    "EntryError",
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
    "size_text",
    "stale_reminder",
    "without_attachments",
]


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class EditableSettings:
    """The user settings the settings screen edits: the switch and frequency as in force, the
    language and model as written in `~/.wave/settings.json` (empty: not set there)."""

    auto_memory_enabled: bool
    auto_memory_frequency: int
    language: str
    model: str
    auto_memory_review: bool = False


class AgentSession:
    def __init__(
        self,
        service: AgentService | None,
        *,
        store: SettingsStore | None = None,
        clock: Clock = _utc_now,
    ) -> None:
        if store is None:
            if service is None:
                raise ValueError("an AgentSession needs a service or a settings store")
            store = service.store
        self.service = service
        self.store = store
        self.paths: WavePaths = service.paths if service is not None else store.paths
        self.clock = clock
        self._listeners: list[Listener] = []
        self._background: dict[str, str] = {}
        self._context_estimate: int | None = None  # after a compaction, until the next reply
        self.memory = MemoryAccess(self.paths, clock, self._emit)
        self._unsubscribe: list[Callable[[], None]] = []
        if service is not None:
            self._unsubscribe.append(service.subscribe(self._on_service_event))
        self._unsubscribe.append(store.subscribe(lambda _settings: self._settings_changed()))

    # req: UX14
    def attach(self, service: AgentService) -> None:
        """The agent that was still starting (a local model) is ready: chat from now on."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self.service = service
        self.store = service.store
        self._unsubscribe = [
            service.subscribe(self._on_service_event),
            self.store.subscribe(lambda _settings: self._settings_changed()),
        ]
        self._status_changed()

    @classmethod
    def offline(
        cls,
        paths: WavePaths,
        clock: Clock = _utc_now,
        environ: Mapping[str, str] | None = None,
    ) -> AgentSession:
        """A session without an agent (it could not start, or `wave memory …`): memory and
        settings only."""
        return cls(None, store=SettingsStore(paths, environ), clock=clock)

    # -- lifecycle -----------------------------------------------------------------------------
    @property
    def available(self) -> bool:
        """True when an agent runs behind this session (chat is possible)."""
        return self.service is not None

    def start(self) -> None:
        """Restore the session (--continue / --resume). Raises FileNotFoundError."""
        if self.service is not None:
            self.service.start()
            if self.service.messages and self.service.last_usage is None:
                self._context_estimate = self._estimate_context()  # req: UX3 (resumed: ctx shown)
                self._status_changed()
            mcp = mcp_of(self.service)
            if mcp is not None:
                mcp.start()  # req: MC2

    async def wait_tools_started(self) -> None:
        """Until the MCP servers finished starting (`wave -p`, before the first request)."""
        mcp = mcp_of(self.service) if self.service is not None else None
        if mcp is not None:
            await mcp.wait_started()

    # -- trust (HK10, MC6) ---------------------------------------------------------------------
    # req: MC8
    def trust_requests(self) -> list[TrustRequested]:
        """The project's hook / MCP server sets that wait for the user's trust (app only)."""
        return project_trust.trust_requests(self.service) if self.service is not None else []

    def trust_request(self) -> TrustRequested | None:
        """The first set that waits for trust (ask, grant or not, then call again)."""
        return next(iter(self.trust_requests()), None)

    # req: HK10
    async def grant_trust(self, requests: list[TrustRequested]) -> None:
        """The user trusted these sets: remembered; hooks run / servers start from now."""
        if self.service is not None:
            for request in requests:
                await project_trust.grant_trust(self.service, request)

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
            for extension in self.service.extensions:
                if isinstance(extension, ExtractionHook):
                    extension.cancel()

    # -- events --------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: ev.AgentEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _on_service_event(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.BackgroundChanged):
            if event.running:
                self._background[event.kind] = event.detail
            else:
                self._background.pop(event.kind, None)
        compacted = isinstance(event, ev.Notice) and event.kind == "compaction"
        if compacted:
            self._context_estimate = self._estimate_context()  # req: UX8
        elif isinstance(event, ev.UsageUpdated) and event.source == "main":
            self._context_estimate = None
        self._emit(event)
        if compacted or isinstance(event, _STATUS_EVENTS):
            self._status_changed()

    def _estimate_context(self) -> int:
        """The context after a compaction: the summary and kept rounds, counted from characters
        (the last reported usage still counts the history that was summarised)."""
        messages = self.service.messages if self.service is not None else []
        return estimate_tokens(json.dumps([m.model_dump(mode="json") for m in messages]))

    # req: UX8
    def _settings_changed(self) -> None:
        if self.service is not None:
            self.service.apply_current_settings()
        self._status_changed()

    def _status_changed(self) -> None:
        self._emit(ev.StatusChanged(self.status()))

    # -- conversation --------------------------------------------------------------------------
    def _agent(self) -> AgentService:
        if self.service is None:
            raise RuntimeError("the agent could not start")
        return self.service

    async def send(self, text: str) -> None:
        """Queue a message (or a slash command); turns run one after another. `!cmd` runs
        once the agent is idle (not a turn); `@path` files are attached."""
        service = self._agent()
        if shell_command(text) is not None:
            await service.wait_idle()
            await self._run_shell(text)
            return
        await service.send(self._with_attachments(text))

    async def run_turn(self, text: str) -> TurnResult:
        """Run one message (or command) now and return how it ended (`wave -p`)."""
        if shell_command(text) is not None:
            return await self._run_shell(text)
        return await self._agent().run_turn(self._with_attachments(text))

    # req: UX16
    async def _run_shell(self, text: str) -> TurnResult:
        service = self._agent()
        command = shell_command(text) or ""
        run = await run_shell(command, self.paths.project_root, service.settings.env)
        message = Message.user(run.as_message())
        service.conversation.add(message)
        self._emit(ev.UserMessageAdded(message))
        return TurnResult("completed", run.output, command=True)

    # req: UX16
    def _with_attachments(self, text: str) -> str:
        if parse_command(text) is not None or "@" not in text:
            return text
        service = self._agent()
        attached, _paths = attach_files(text, self.paths.project_root, service.read_state)
        return attached

    def complete_path(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """Tab on a trailing `@partial` (fuzzy), for the input."""
        return complete_path(text, self.paths.project_root)

    async def run_command(self, text: str) -> CommandResult:
        """Run a slash command now; its answer is local (not a turn, nothing sent to the
        model). A command that expands to a prompt is returned, not run: `send` it."""
        if self.service is None:
            return CommandOutput("the agent could not start", is_error=True)
        return await self.service.commands.dispatch(text)

    def command_names(self, prefix: str = "") -> list[str]:
        """Commands starting with `prefix` (without the slash), for completion."""
        if self.service is None:
            return []
        return [c.name for c in self.service.commands.complete(prefix)]

    def command_choices(self, prefix: str = "") -> list[CommandChoice]:
        """Commands starting with `prefix`, with descriptions (the `/` completion popup)."""
        if self.service is None:
            return []
        from wave_tui.agent.ui_queries import command_choices

        return command_choices(self.service.commands.complete(prefix))

    def model_choices(self) -> list[ModelChoice]:
        """The configured models (`model`, `fastModel`, `models.*`) for the `/model` picker."""
        from wave_tui.agent.ui_queries import model_choices

        return model_choices(self.model_in_use(), self.store.current())

    # req: UX2
    def grant_label(self, tool: str, args: dict[str, Any]) -> str:
        """What "Always allow … this session" allows for this call (the dialog's label)."""
        return grant_label(tool, args, self.paths.project_root)

    # req: UX18
    async def permission_preview(self, tool: str, args: dict[str, Any]) -> PermissionPreview:
        """What the call will do: the diff of an Edit/Write, the full Bash command."""
        from wave_tui.agent.ui_queries import permission_preview

        return await asyncio.to_thread(permission_preview, tool, args, self.paths.project_root)

    def permission_state(self) -> PermissionState | None:
        from wave_tui.agent.ui_queries import permission_state

        return permission_state(self.service.policy) if self.service is not None else None

    def revoke_grant(self, grant: str) -> bool:
        """Remove one of this session's "always allow" grants."""
        from wave_tui.agent.ui_queries import revoke_grant

        return self.service is not None and revoke_grant(self.service.policy, grant)

    def abort(self) -> None:
        if self.service is not None:
            self.service.abort()

    async def compact(self, focus: str | None = None) -> bool:
        return await self._agent().compact(focus)

    def clear(self) -> None:
        self._agent().clear()
        self._status_changed()

    async def wait_idle(self) -> None:
        if self.service is not None:
            await self.service.wait_idle()

    # req: UX19
    def unqueue_last(self) -> str | None:
        """Take back the last queued message (to edit it); None when nothing waits."""
        service = self.service
        if service is None or not service.queue:
            return None
        text = service.queue.pop()
        service.publish(ev.QueueChanged(tuple(service.queue)))
        self._status_changed()
        return text

    # req: UX19
    def clear_queue(self) -> None:
        service = self.service
        if service is not None and service.queue:
            service.queue.clear()
            service.publish(ev.QueueChanged(()))
            self._status_changed()

    # req: UX17
    def cycle_permission_mode(self) -> PermissionMode:
        """default -> acceptEdits -> plan -> default (another mode goes back to default); it
        holds for the rest of the session."""
        service = self._agent()
        cycle: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan")
        current = service.policy.mode
        mode = cycle[(cycle.index(current) + 1) % len(cycle)] if current in cycle else "default"
        service.options.permission_mode = mode
        service.policy.mode = mode
        self._status_changed()
        return mode

    # req: UX19
    async def input_history(self) -> list[str]:
        """What was typed in this project before (oldest first), for Up / Down and Ctrl+R."""
        from wave_tui.agent.input_history import load_history

        return await asyncio.to_thread(
            load_history, self.paths.input_history, self.paths.project_root
        )

    async def remember_input(self, text: str) -> None:
        from wave_tui.agent.input_history import append_history

        await asyncio.to_thread(
            append_history, self.paths.input_history, self.paths.project_root, text
        )

    def messages(self) -> list[Message]:
        """The conversation so far (a resumed session's messages, for the chat view)."""
        return list(self.service.messages) if self.service is not None else []

    def context_report(self) -> str | None:
        """What the next request costs per source, as `/context` prints it (MX2); None without
        an agent."""
        if self.service is None:
            return None
        from wave_tui.agent.context_report import build_context_report

        return build_context_report(self.service).render()

    # -- work that spans turns (issue 18) ---------------------------------------------------------
    async def tasks(self) -> list[Task]:
        """The session's task list (the task panel's first state; `TasksChanged` follows)."""
        work = self._work()
        return await work.store.all_tasks() if work is not None else []

    def _work(self) -> WorkFeatures | None:
        extensions = self.service.extensions if self.service is not None else []
        return next((e for e in extensions if isinstance(e, WorkFeatures)), None)

    # -- status --------------------------------------------------------------------------------
    # req: U2
    def status(self) -> AgentStatus:
        settings = self.store.current()
        service = self.service
        model = service.model if service is not None else settings.model
        configured = bool(service is not None and model and settings.base_url)
        usage = service.last_usage if service is not None else None
        window = (
            resolve_max_input_tokens(settings, model, service.options.max_input_tokens)
            if service is not None and model
            else None
        )
        probed = service.runner.probed_window(model) if service is not None else None
        if window is not None and probed:  # req: PV11
            window = min(window, probed)
        background = None
        if self._background:
            kind, detail = next(reversed(self._background.items()))
            background = f"{kind}{': ' + detail if detail else ''}"
        return AgentStatus(
            model=model if configured else None,
            configured=configured,
            busy=bool(service is not None and service.busy),
            context_tokens=(
                self._context_estimate
                if self._context_estimate is not None
                else context_tokens(usage)
            ),
            context_window=window,
            context_estimated=self._context_estimate is not None
            or bool(usage is not None and usage.estimated),  # req: PV9
            cache_hit_ratio=cache_hit_ratio(usage),
            auto_memory=settings.auto_memory_enabled,
            auto_memory_frequency=settings.auto_memory_frequency,
            turns_until_extraction=service.turns_until_next if service is not None else None,
            extraction_running=bool(service is not None and service.background_busy),
            compacting=bool(service is not None and service.compacting),
            permission_mode=service.policy.mode if service is not None else "default",
            queue=tuple(service.queue) if service is not None else (),
            background=background,
        )

    def rule_activation(self, rule_id: str) -> tuple[str, str] | None:
        """For a conditional rule loaded in this session: (trigger file, pattern)."""
        if self.service is None:
            return None
        activations = self.service.rule_activations()
        return activations.get(rule_id) if activations is not None else None

    def knows_rule_activations(self) -> bool:
        return self.service is not None and self.service.rule_activations() is not None

    # -- memory --------------------------------------------------------------------------------
    async def list_memories(self) -> list[MemoryEntry]:
        return await asyncio.to_thread(self.memory.list)

    async def show_memory(self, entry_id: str) -> MemoryEntry:
        return await asyncio.to_thread(self.memory.show, entry_id)

    async def add_memory(self, scope: MemoryScope, text: str) -> AddResult:
        """Raises EntryError; a duplicate is reported in the result, not written."""
        return await asyncio.to_thread(self.memory.add, scope, text)

    async def delete_memory(self, entry: MemoryEntry) -> MemoryEntry:
        """Delete the entry the user saw (EntryError when it changed on disk since)."""
        return await asyncio.to_thread(self.memory.delete, entry.id, entry)

    async def with_missing_refs(self, entries: list[MemoryEntry]) -> list[MemoryEntry]:
        """The entries marked with the files, lines and symbols they cite that are gone (MX6)."""
        return await asyncio.to_thread(self.memory.with_missing_refs, entries)

    async def list_runs(self) -> list[Run]:
        """Extraction runs and reverts, newest first (MX7)."""
        return await asyncio.to_thread(self.memory.runs)

    async def revert_run(self, run_id: str) -> RevertResult:
        """Undo one extraction run; the revert is recorded. Raises RunError."""
        return await asyncio.to_thread(self.memory.revert, run_id)

    async def pending_writes(self) -> list[PendingWrite]:
        """The review inbox: fork writes waiting for accept / reject (MX8)."""
        return await asyncio.to_thread(self.memory.inbox)

    async def accept_pending(self, item_id: str) -> PendingWrite:
        """Raises InboxError (unknown id, or the file changed since the proposal)."""
        return await asyncio.to_thread(self.memory.accept, item_id)

    async def reject_pending(self, item_id: str) -> PendingWrite:
        return await asyncio.to_thread(self.memory.reject, item_id)

    def memory_target(self, scope: MemoryScope) -> Path:
        return self.memory.target(scope)

    # -- settings ------------------------------------------------------------------------------
    def settings(self) -> EffectiveSettings:
        return self.store.current()

    async def read_settings(self) -> EditableSettings:
        raw = await asyncio.to_thread(_read_json_object, self.paths.user_settings)
        effective = self.store.current()
        return EditableSettings(
            auto_memory_enabled=effective.auto_memory_enabled,
            auto_memory_frequency=effective.auto_memory_frequency,
            language=str(raw.get("language") or ""),
            model=str(raw.get("model") or ""),
            auto_memory_review=effective.auto_memory_review,
        )

    @staticmethod
    def setting_help(name: str) -> str:
        """The schema's description of a settings key or WAVE_* variable (the settings form)."""
        from wave_tui.config.schema import settings_fields

        for item in settings_fields():
            if name in (item.key, item.env):
                return item.description
        return ""

    async def save_settings(self, **changes: Any) -> None:
        """Write keys of `~/.wave/settings.json` (None removes one), then reload: the status
        shows the change at once, the agent applies it from the next turn."""
        await asyncio.to_thread(save_user_settings, self.paths, **changes)
        self.store.refresh()
        self._status_changed()

    async def read_endpoint(self) -> EndpointSettings:
        from wave_tui.agent.endpoint_settings import read_endpoint

        return await asyncio.to_thread(read_endpoint, self.paths)

    # req: UX20
    async def save_endpoint(self, endpoint: EndpointSettings) -> None:
        """Base URL and API key into `env`, the models into `model`/`fastModel`; mode 0600."""
        from wave_tui.agent.endpoint_settings import save_endpoint

        await asyncio.to_thread(save_endpoint, self.paths, endpoint)
        self.store.refresh()
        self._status_changed()

    # req: UX20
    async def test_connection(self, base_url: str, api_key: str, model: str) -> ConnectionCheck:
        """One small real request to the endpoint with these (unsaved) values; an empty field
        falls back to the value in force (environment or settings)."""
        from wave_tui.agent.ui_queries import check_connection

        current = self.store.current()
        return await check_connection(
            base_url or current.base_url or "",
            api_key or current.api_key or "",
            model or self.model_in_use() or "",
        )

    # req: UX6
    def settings_problems(self) -> list[str]:
        """What is wrong in the settings files now (one line each; empty when all is well)."""
        return list(self.store.current().problems)

    def model_in_use(self) -> str | None:
        """The model the agent uses (--model / WAVE_MODEL win over the settings file)."""
        if self.service is not None:
            return self.service.model
        return self.store.current().model

    async def watch_settings(self) -> AsyncIterator[EffectiveSettings]:
        """Settings as they change on disk (subscribers are told; see `subscribe`)."""
        async for settings in self.store.watch():
            yield settings

    # -- sessions ------------------------------------------------------------------------------
    async def list_sessions(self) -> list[SessionInfo]:
        """This project's sessions, most recently active first (a resume picker)."""
        return await asyncio.to_thread(list_sessions, self.paths)

    async def session_summaries(self) -> list[SessionSummary]:
        """The resume picker's rows: first prompt, age, size, most recent first."""
        current = self.service.session_id if self.service is not None else None
        now = self.clock().timestamp()

        from wave_tui.agent.ui_queries import session_summaries

        def rows() -> list[SessionSummary]:
            return session_summaries(list_sessions(self.paths), current, now)

        return await asyncio.to_thread(rows)

    def resume(self, session_id: str) -> None:
        """Switch this session to another of the project's conversations (the resume picker).
        Raises FileNotFoundError for an unknown id, RuntimeError while a turn runs."""
        service = self._agent()
        if service.busy:
            raise RuntimeError("wait for the turn to finish (or press Esc) before resuming")
        target = service.conversation.find_session(session_id, False)
        assert target is not None
        # What `service.clear()` resets, without its "new conversation" notice.
        service.runner.forget()
        service.compaction.reset()
        service.conversation.restore(target)
        service.requests.invalidate()
        service._messages_restored()
        self._status_changed()


def create_session(
    options: AgentOptions, *, approver: Approver | None = None, clock: Clock = _utc_now
) -> AgentSession:
    """The fully wired agent (memory hooks, extraction fork) behind a session."""
    return AgentSession(create_service(options, approver=approver), clock=clock)


def _read_json_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
