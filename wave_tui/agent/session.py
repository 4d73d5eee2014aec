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
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.commands import CommandOutput, CommandResult, parse_command
from wave_tui.agent.context_report import build_context_report
from wave_tui.agent.factory import create_service
from wave_tui.agent.local_endpoint import LocalModelError, LocalUnavailable, prepare_local_endpoint
from wave_tui.agent.memory_access import (
    AddResult,
    EntryError,
    MemoryAccess,
    MemoryEntry,
    MemoryScope,
    preview_body,
    stale_reminder,
)
from wave_tui.agent.memory_review import MemoryReview, ReviewError, near_duplicates
from wave_tui.agent.service import AgentOptions, AgentService, Approver, TurnResult, key_argument
from wave_tui.agent.sessions import SessionInfo, list_sessions
from wave_tui.agent.status import AgentStatus, cache_hit_ratio, context_tokens
from wave_tui.config.paths import WavePaths
from wave_tui.config.schema import PERMISSION_MODES
from wave_tui.config.settings import (
    EffectiveSettings,
    SettingsStore,
    resolve_max_input_tokens,
    save_user_settings,
)
from wave_tui.llm.types import Message

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
    "EditableSettings",
    "EntryError",
    "LocalModelError",
    "LocalUnavailable",
    "MemoryAccess",
    "MemoryEntry",
    "MemoryReview",
    "MemoryScope",
    "Message",
    "ReviewError",
    "SessionInfo",
    "TurnResult",
    "build_context_report",
    "create_service",
    "create_session",
    "key_argument",
    "near_duplicates",
    "parse_command",
    "prepare_local_endpoint",
    "preview_body",
    "stale_reminder",
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
        self.memory = MemoryAccess(self.paths, clock, self._emit)
        self._unsubscribe: list[Callable[[], None]] = []
        if service is not None:
            self._unsubscribe.append(service.subscribe(self._on_service_event))
        self._unsubscribe.append(store.subscribe(lambda _settings: self._status_changed()))

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

    async def close(self) -> None:
        """Abort the turn and wait for background work (an extraction's writes, C4)."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        if self.service is not None:
            await self.service.destroy()

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
        self._emit(event)
        if isinstance(event, _STATUS_EVENTS):
            self._status_changed()

    def _status_changed(self) -> None:
        self._emit(ev.StatusChanged(self.status()))

    # -- conversation --------------------------------------------------------------------------
    def _agent(self) -> AgentService:
        if self.service is None:
            raise RuntimeError("the agent could not start")
        return self.service

    async def send(self, text: str) -> None:
        """Queue a message (or a slash command); turns run one after another."""
        await self._agent().send(text)

    async def run_turn(self, text: str) -> TurnResult:
        """Run one message (or command) now and return how it ended (`wave -p`)."""
        return await self._agent().run_turn(text)

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

    def messages(self) -> list[Message]:
        """The conversation so far (a resumed session's messages, for the chat view)."""
        return list(self.service.messages) if self.service is not None else []

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
        background = None
        if self._background:
            kind, detail = next(reversed(self._background.items()))
            background = f"{kind}{': ' + detail if detail else ''}"
        return AgentStatus(
            model=model if configured else None,
            configured=configured,
            busy=bool(service is not None and service.busy),
            context_tokens=context_tokens(usage),
            context_window=window,
            context_estimated=False,
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
        )

    async def save_settings(self, **changes: Any) -> None:
        """Write keys of `~/.wave/settings.json` (None removes one), then reload: the status
        shows the change at once, the agent applies it from the next turn."""
        await asyncio.to_thread(save_user_settings, self.paths, **changes)
        self.store.refresh()
        self._status_changed()

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
