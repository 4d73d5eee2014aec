"""The memory browser's door (M3, M4, MX6–MX8): `MemoryAccess`, off the event loop.

Each call runs the blocking file work of `MemoryAccess` in a thread; every write it makes is
announced as a `MemoryChanged` event on the session's stream. Why a conditional rule is loaded
comes from the agent, when one runs. The catalog is kept from one listing to the next, each file
read again only when its stat changed: the browser lists on every showing and after every
extraction, and a 10,000-entry memory must not be read each time.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from wave_tui.agent import events as ev
from wave_tui.memory.catalog import CatalogCache, build_catalog
from wave_tui.memory.catalog_marks import with_conflicts, with_loads
from wave_tui.memory.consolidation import ConsolidationPlan
from wave_tui.session.core import SessionCore
from wave_tui.session.memory_access import (
    AddResult,
    MemoryAccess,
    MemoryEntry,
    MemoryScope,
    PendingWrite,
    RevertResult,
    Run,
)
from wave_tui.session.memory_consolidate import (
    Consolidated,
    apply_consolidation,
    consolidation_plan,
)


class MemoryBrowserAccess:
    def __init__(self, core: SessionCore) -> None:
        self._core = core
        self.access = MemoryAccess(core.paths, core.clock, self._announce)
        self._catalog = CatalogCache()

    def _announce(self, event: ev.AgentEvent) -> None:
        """A write goes out through the agent when one runs (its observers see it, telemetry),
        which forwards it to the session's stream."""
        service = self._core.service
        if service is not None:
            service.publish(event)
        else:
            self._core.emit(event)

    async def entries(self) -> list[MemoryEntry]:
        """`MemoryAccess.list`, from the files as they are now (unchanged ones not read again)."""
        access = self.access

        def listing() -> list[MemoryEntry]:
            entries = build_catalog(access.paths, access.clock, cache=self._catalog)
            # One read of the append-only load log (MM6).
            entries = with_conflicts(entries, access.paths)  # the last check's findings (MM2)
            return with_loads(entries, access.paths, access.clock())

        return await asyncio.to_thread(listing)

    # req: MM5
    async def consolidation_plan(self) -> ConsolidationPlan:
        """What one pass would change (shown before it is applied). Raises CheckError when the
        model request failed."""
        core = self._core
        return await consolidation_plan(core.paths, core.clock, core.store.environ)

    async def consolidate(self, planned: ConsolidationPlan) -> Consolidated:
        """The plan written as a revertible run, or as inbox items in review mode."""
        core = self._core
        done = await apply_consolidation(planned, core.paths, core.store.environ)
        if done.run is not None and done.run.changes:
            self._announce(ev.MemoryChanged(tuple(change.path for change in done.run.changes)))
        return done

    async def show(self, entry_id: str) -> MemoryEntry:
        """Raises EntryError for an unknown id."""
        return await asyncio.to_thread(self.access.show, entry_id)

    # req: MR5
    async def provenance_lines(self, entry: MemoryEntry) -> list[str]:
        """The detail pane's provenance: who wrote it and when, citations, loads."""
        provenance = await asyncio.to_thread(self.access.provenance, entry)
        return provenance.lines(now=self.access.clock().timestamp())

    async def add(self, scope: MemoryScope, text: str) -> AddResult:
        """Raises EntryError; a duplicate is reported in the result, not written."""
        return await asyncio.to_thread(self.access.add, scope, text)

    async def delete(self, entry: MemoryEntry) -> MemoryEntry:
        """Delete the entry the user saw (EntryError when it changed on disk since)."""
        return await asyncio.to_thread(self.access.delete, entry.id, entry)

    async def with_missing_refs(self, entries: list[MemoryEntry]) -> list[MemoryEntry]:
        """The entries marked with the files, lines and symbols they cite that are gone (MX6)."""
        return await asyncio.to_thread(self.access.with_missing_refs, entries)

    async def runs(self) -> list[Run]:
        """Extraction runs and reverts, newest first (MX7)."""
        return await asyncio.to_thread(self.access.runs)

    async def revert(self, run_id: str) -> RevertResult:
        """Undo one extraction run; the revert is recorded. Raises RunError."""
        return await asyncio.to_thread(self.access.revert, run_id)

    async def inbox(self) -> list[PendingWrite]:
        """The review inbox: fork writes waiting for accept / reject (MX8)."""
        return await asyncio.to_thread(self.access.inbox)

    async def accept(self, item_id: str) -> PendingWrite:
        """Raises InboxError (unknown id, or the file changed since the proposal)."""
        return await asyncio.to_thread(self.access.accept, item_id)

    async def reject(self, item_id: str) -> PendingWrite:
        return await asyncio.to_thread(self.access.reject, item_id)

    def target(self, scope: MemoryScope) -> Path:
        return self.access.target(scope)

    def rule_activation(self, rule_id: str) -> tuple[str, str] | None:
        """For a conditional rule loaded in this session: (trigger file, pattern)."""
        service = self._core.service
        activations = service.rule_activations() if service is not None else None
        return activations.get(rule_id) if activations is not None else None

    def knows_rule_activations(self) -> bool:
        service = self._core.service
        return service is not None and service.rule_activations() is not None
