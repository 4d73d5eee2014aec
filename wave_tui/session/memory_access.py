"""Memory as the UI and `wave memory` see it: list, show, add, delete (M3, M4).

The one door to `memory.catalog` / `memory.entries` for the front ends: `tui` and `cli` reach
memory files only through here (via `AgentSession`), so every write is announced as a
`MemoryChanged` event and no front end touches the files itself.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from wave_tui.agent import events as ev
from wave_tui.agent.events import Emit
from wave_tui.config.clock import Clock
from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import (
    MemoryEntry,
    build_catalog,
    delete_entry,
    find_entry,
    with_missing_refs,
)
from wave_tui.memory.catalog_marks import (
    pin_citations,
    with_changed_refs,
    with_conflicts,
    with_loads,
)
from wave_tui.memory.citations import ChangedRef
from wave_tui.memory.duplicates import Duplicate, find_duplicate
from wave_tui.memory.entries import AddResult, EntryError, add_entry
from wave_tui.memory.frontmatter import parse_frontmatter
from wave_tui.memory.inbox import Inbox, InboxError, PendingWrite
from wave_tui.memory.injection import REMINDER_CLOSE, REMINDER_OPEN
from wave_tui.memory.provenance import record_writes
from wave_tui.memory.runs import RevertResult, Run, RunError, list_runs, revert_run
from wave_tui.memory.staleness import STALENESS_TEMPLATE
from wave_tui.session.memory_provenance import EntryProvenance, provenance_for

MemoryScope = Literal["project", "user"]
Warn = Callable[[str], None]

__all__ = [
    "AddResult",
    "ChangedRef",
    "Duplicate",
    "EntryError",
    "InboxError",
    "MemoryAccess",
    "MemoryEntry",
    "MemoryScope",
    "PendingWrite",
    "RevertResult",
    "Run",
    "RunError",
]


class MemoryAccess:
    """Blocking file work: call from a thread (`AgentSession` wraps each in `to_thread`)."""

    def __init__(self, paths: WavePaths, clock: Clock, emit: Emit | None = None) -> None:
        self.paths = paths
        self.clock = clock
        self._emit = emit

    @classmethod
    def for_command(cls, paths: WavePaths, clock: Clock) -> MemoryAccess:
        """For `wave memory …`, which runs no session: its writes still reach telemetry."""
        from wave_tui.features.telemetry.oneshot import memory_write_emitter

        return cls(paths, clock, memory_write_emitter(paths))

    def target(self, scope: MemoryScope) -> Path:
        """The AGENTS.md file a quick-add of this scope writes to."""
        return self.paths.project_agents_md if scope == "project" else self.paths.user_agents_md

    # req: M3
    def list(self, warn: Warn | None = None) -> builtins.list[MemoryEntry]:
        """Every entry; rules and path-scoped memories with their use counts (MM6)."""
        entries = build_catalog(self.paths, self.clock, warn=warn)
        entries = with_conflicts(entries, self.paths)
        return with_loads(entries, self.paths, self.clock())

    # `builtins.list`: inside this class `list` names the method above.
    def with_missing_refs(self, entries: builtins.list[MemoryEntry]) -> builtins.list[MemoryEntry]:
        """The entries with what each cites that no longer exists (MX6) or reads differently
        since the memory was written (MM1)."""
        return with_changed_refs(with_missing_refs(entries, self.paths.project_root), self.paths)

    def similar_entry(self, text: str, written_to: Path) -> Duplicate | None:
        """An entry of another file that `text` repeats or closely matches (MX9)."""
        others = [e for e in build_catalog(self.paths, self.clock) if e.path != written_to]
        return find_duplicate(text, others)

    # req: M4
    def show(self, entry_id: str) -> MemoryEntry:
        return find_entry(self.paths, entry_id)

    # req: MR5
    def provenance(self, entry: MemoryEntry) -> EntryProvenance:
        """Who wrote the entry, when, its citations as they check now, its loads."""
        return provenance_for(self.paths, entry)

    def add(self, scope: MemoryScope, text: str) -> AddResult:
        """Append one item; a duplicate is reported, not written. Raises EntryError."""
        path = self.target(scope)
        result = add_entry(path, text)
        if result.added:
            self._pin_citations(path)
            record_writes(self.paths.project_dir, [path], "user")
            self._changed(path)
        return result

    # req: MR6
    def _pin_citations(self, path: Path) -> None:
        """The items of a file just written are pinned to the code they cite as it is now, as a
        topic file is when written: a later change of that code is then marked."""
        entries = [e for e in build_catalog(self.paths, self.clock) if e.path == path]
        pin_citations(entries, self.paths)

    def delete(self, entry_id: str, listed: MemoryEntry | None = None) -> MemoryEntry:
        """Delete one entry (the one the user saw, when `listed` is given). Raises EntryError."""
        entry = delete_entry(self.paths, entry_id, listed)
        self._changed(entry.path)
        return entry

    # req: MX7
    def runs(self) -> builtins.list[Run]:
        """The extraction runs (and reverts) recorded for this project, newest first."""
        return sorted(list_runs(self.paths.project_dir), key=lambda r: r.started_at, reverse=True)

    def revert(self, run_id: str) -> RevertResult:
        """Put back what one run changed (the revert is itself recorded). Raises RunError."""
        result = revert_run(self.paths.project_dir, run_id)
        if result.restored:
            self._changed(*result.restored)
        return result

    # req: MX8
    def inbox(self) -> builtins.list[PendingWrite]:
        """Fork writes waiting for review (`autoMemoryReview`)."""
        return self._inbox().items()

    def accept(self, item_id: str) -> PendingWrite:
        """Write one pending file into the memory folder. Raises InboxError."""
        item = self._inbox().accept(item_id)
        self._changed(item.path)
        return item

    def reject(self, item_id: str) -> PendingWrite:
        """Drop one pending file; nothing reaches the memory folder. Raises InboxError."""
        return self._inbox().reject(item_id)

    def _inbox(self) -> Inbox:
        return Inbox(self.paths.project_dir, self.paths.memory_dir, self.paths.team_memory_dir)

    def _changed(self, *paths: Path) -> None:
        if self._emit is not None:
            self._emit(ev.MemoryChanged(paths))


def stale_reminder(entry: MemoryEntry) -> str | None:
    """The staleness reminder the agent sees (T1), without its tags."""
    # Only auto memories get this reminder when the agent reads them (T3).
    if entry.scope != "auto" or not entry.stale or entry.age_days is None:
        return None
    text = STALENESS_TEMPLATE.format(days=entry.age_days)
    return text.removeprefix(REMINDER_OPEN).removesuffix(REMINDER_CLOSE)


def preview_body(entry: MemoryEntry) -> str:
    """The entry's text for the preview; frontmatter is left out (the header shows it)."""
    if entry.scope in ("auto", "team", "rule"):
        return parse_frontmatter(entry.body).body.strip()
    return entry.body
