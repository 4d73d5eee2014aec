"""Auto memory in the loop: directory + safe zone (S5, A4), the index in the system prompt (A2),
the memory prompt (P1–P7), staleness on Read (T1–T5), index-cap notes and locked writes (X2)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.agent.extensions import StatusContribution, ToolCallInfo, ToolOutcome
from wave_tui.config.async_locks import async_file_lock
from wave_tui.config.clock import Clock
from wave_tui.config.paths import OwnedPathError, WavePaths
from wave_tui.files.read_state import ReadState
from wave_tui.llm.types import Message
from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.citations import CitationStore, changed_reminder
from wave_tui.memory.index import IndexView, check_index_write, load_index
from wave_tui.memory.prompts import render_memory_index_block, render_memory_section
from wave_tui.memory.provenance import record_writes
from wave_tui.memory.secrets import secret_refusal, written_text
from wave_tui.memory.staleness import memory_age_days, staleness_reminder, staleness_summary
from wave_tui.memory.turn_counter import TurnCounter
from wave_tui.permissions.policy import SafeZones
from wave_tui.permissions.tool_table import READ
from wave_tui.tools.base import ToolResult

if TYPE_CHECKING:
    from wave_tui.config.schema import MemoryWrites
    from wave_tui.config.settings import EffectiveSettings

Notify = Callable[[str, str], None]


def turns_since(messages: list[Message], since: float | None) -> int:
    """Completed user turns in `messages` after the time `since` (all of them when None)."""
    turns = 0
    for message in messages:
        if message.role != "user" or message.is_meta or message.kind != "normal":
            continue
        try:
            stamp = datetime.fromisoformat(message.timestamp).timestamp()
        except ValueError:
            continue
        if since is None or stamp > since:
            turns += 1
    return turns


class AutoMemoryHook:
    """SessionObserver (the switch, restore), ContextSource (memory prompt and index),
    ToolGuard (no secrets in memory), ToolLock (memory files, X2), ToolObserver (staleness,
    index-cap notes) and StatusSource (the extraction countdown). The extraction scheduler
    talks to it only through `refresh` / `take_wrote_memory` / `count_turn`."""

    def __init__(
        self,
        paths: WavePaths,
        *,
        safe_zones: SafeZones,
        read_state: Callable[[], ReadState],
        clock: Clock,
        notify: Notify,
        last_extraction: Callable[[], float | None] = lambda: None,
        session_id: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.paths = paths
        self.session_id = session_id  # named in each write's provenance (MR5)
        self._written: list[Path] = []  # memory files the main agent wrote in this tool call
        self.last_extraction = last_extraction  # when this session last extracted (resume)
        self.dir = AutoMemoryDir(paths)
        self.safe_zones = safe_zones
        self.read_state = read_state
        self.clock = clock
        self.notify = notify
        self.counter = TurnCounter()
        self.enabled: bool | None = None
        self.writes: MemoryWrites = "auto"  # autoMemoryWrites in force (MR1)
        self.unusable: str | None = None  # why the memory folder cannot be used this run (M5)
        self.index: IndexView | None = None  # loaded once per session: the prompt stays stable
        self.wrote_memory = False  # a successful main-agent write inside the dir (C3)
        self._resumed_turns: int | None = None  # seeds the counter once settings are known

    # -- settings: one switch decides directory, safe zone, prompt and reminders (S1–S6) ----------
    # req: A4
    # req: S1
    # req: S5
    def on_settings(self, settings: EffectiveSettings) -> None:
        enabled = settings.auto_memory_enabled
        if enabled and not self.enabled:
            enabled = self._folder_ready()
        self.counter.apply_settings(enabled, settings.auto_memory_frequency)
        if self._resumed_turns is not None:
            self.counter.resume(self._resumed_turns)
            self._resumed_turns = None
        self._apply_writes(settings.auto_memory_writes, enabled)
        if enabled == self.enabled:
            return
        self.enabled = enabled
        if enabled and self.index is None:
            self._load_index()

    # req: MR1
    def _apply_writes(self, writes: MemoryWrites, enabled: bool) -> None:
        """`off` keeps recall but takes the folder out of the safe zones: the agent's memory
        writes ask like any write, and no extraction runs."""
        self.writes = writes
        if enabled and writes != "off":
            self.safe_zones.add(self.dir.path)
        else:
            self.safe_zones.remove(self.dir.path)

    # req: M5
    def _folder_ready(self) -> bool:
        """Make the memory folder; one that cannot be (a file in its place, MEMORY.md a
        folder) turns auto memory off for the rest of this run, said once, and the turn goes on."""
        if self.unusable is not None:
            return False
        try:
            self.dir.ensure()
        except OwnedPathError as exc:
            self.unusable = str(exc)
            self.notify("warning", f"{exc}; auto memory is off for this run")
            return False
        return True

    def _load_index(self) -> None:
        self.index = load_index(self.dir.index_path)
        try:
            text = self.dir.index_path.read_text(encoding="utf-8")
            mtime = self.dir.index_path.stat().st_mtime_ns
        except (OSError, UnicodeDecodeError):
            return
        # MEMORY.md as loaded into the prompt counts as read: a rewrite elsewhere is notified (N7).
        self.read_state().record_text(Path(os.path.realpath(self.dir.index_path)), text, mtime)

    def status(self) -> StatusContribution:
        turns = self.counter.turns_until_next if self.extracts else None
        unusable = self.unusable is not None
        return StatusContribution(turns_until_extraction=turns, auto_memory_unusable=unusable)

    # -- the extraction scheduler's view (C1–C4) ---------------------------------------------------
    @property
    def extracts(self) -> bool:
        """Auto memory on and its writes not `off`: the extraction fork may run."""
        return bool(self.enabled) and self.writes != "off"

    # req: MR1
    def refresh(self, settings: EffectiveSettings) -> bool:
        """Apply the settings in force now; True when an extraction may run."""
        self.on_settings(settings)
        return self.extracts

    def take_wrote_memory(self) -> bool:
        """Whether the main agent wrote memory this turn; the flag starts afresh (C3)."""
        wrote, self.wrote_memory = self.wrote_memory, False
        return wrote

    def count_turn(self) -> bool:
        """Count a completed turn; True when an extraction is due now."""
        return self.counter.on_turn_end()

    def take_unseen_turns(self) -> int:
        """Completed turns no extraction has seen (the flush before a compaction takes them)."""
        return self.counter.take_pending()

    async def aclose(self) -> None:
        pass

    def on_messages_restored(self, messages: list[Message]) -> None:
        if self.enabled is None:  # a resumed session, before its first turn: continue its count
            self._resumed_turns = turns_since(messages, self.last_extraction())
        elif self.enabled:  # after compaction MEMORY.md is read again (the prompt changes once)
            self._load_index()

    def prepend_reminder(self) -> str | None:
        return None

    def before_request(self) -> list[Message]:
        return []

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        if not self.enabled or self.index is None:
            return []
        return [
            render_memory_section(self.dir.path),
            render_memory_index_block(self.index.text, self.index.warning),
        ]

    # -- tools ------------------------------------------------------------------------------------
    async def check(self, call: ToolCallInfo) -> str | None:
        """No credentials in memory files, whoever writes them."""
        if not call.row.writes_paths:
            return None
        target = call.facts.target
        if target is None or not self.dir.contains(target):
            return None
        return secret_refusal(written_text(call.name, call.args))

    # req: X2
    def lock_for(self, call: ToolCallInfo) -> AbstractAsyncContextManager[None] | None:
        if not call.row.writes_paths or not self.enabled:
            return None
        target = call.facts.target
        if target is None or not self.dir.contains(target):
            return None
        return async_file_lock(target)

    async def after_tool(self, outcome: ToolOutcome) -> None:
        outcome.result = self._transform(outcome.call, outcome.result)
        written, self._written = self._written, []
        if written:
            await asyncio.to_thread(self._record_provenance, written)

    # req: MR5
    def _record_provenance(self, written: list[Path]) -> None:
        record_writes(self.paths.project_dir, written, "main", session=self.session_id())

    # req: T5
    def _transform(self, call: ToolCallInfo, result: ToolResult) -> ToolResult:
        if not self.enabled or result.is_error:
            return result
        if call.name == READ:
            return self._with_staleness(result)
        if call.row.writes_paths:
            for path in result.written_paths:
                if not self.dir.contains(path):
                    continue
                self.wrote_memory = True
                self._written.append(Path(path))
                self._pin_citations(Path(path))
                if self.dir.is_index(path):
                    with contextlib.suppress(OSError, UnicodeDecodeError):
                        note = check_index_write(Path(path).read_text(encoding="utf-8"))
                        if note:
                            result.content = f"{result.content}\n\n{note}"
        return result

    def _citations(self) -> CitationStore:
        return CitationStore(self.paths.citations_file, self.paths.project_root)

    # req: MM1
    def _pin_citations(self, path: Path) -> None:
        """A memory just written is pinned to the code it cites as the code is now."""
        with contextlib.suppress(OSError, UnicodeDecodeError):
            self._citations().pin([path.read_text(encoding="utf-8")])

    # req: MM1
    def _with_changed_citations(self, result: ToolResult, path: Path) -> None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return
        reminder = changed_reminder(self._citations().check({"read": text}).get("read", []))
        if reminder:
            result.content = f"{reminder}\n{result.content}"
            name = os.path.relpath(path, self.dir.path)
            self.notify("stale", f"{name}: citation changed")

    # req: T3
    def _with_staleness(self, result: ToolResult) -> ToolResult:
        for path in result.read_paths:
            if not self.dir.contains(path):
                continue
            self._with_changed_citations(result, Path(path))
            try:
                mtime = Path(path).stat().st_mtime
            except OSError:
                continue
            now = self.clock()
            reminder = staleness_reminder(mtime, now)
            if reminder:
                result.content = f"{reminder}\n{result.content}"
                name = os.path.relpath(path, self.dir.path)
                self.notify("stale", staleness_summary(name, memory_age_days(mtime, now)))
        return result
