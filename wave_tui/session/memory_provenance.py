"""One entry's provenance (MR5), for `wave memory show ID [--json]` and the browser's detail pane:
who wrote it and in which run and session, when, what it cites and the state of each citation
as checked now, and how often it was loaded."""

from __future__ import annotations

import time
from typing import Any, Literal

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.memory.catalog import MemoryEntry
from wave_tui.memory.citations import CitationStore
from wave_tui.memory.loads import read_loads
from wave_tui.memory.provenance import WrittenBy, provenance_of
from wave_tui.memory.references import find_references, missing_references

CitationState = Literal["ok", "changed", "missing"]


@record
class Citation:
    ref: str
    state: CitationState


@record
class EntryProvenance:
    entry: MemoryEntry
    written_by: WrittenBy
    run: str | None
    session: str | None
    written_at: str | None  # ISO 8601, UTC
    written_s: float | None  # the same, in seconds since the epoch (the pane says "3 days ago")
    citations: tuple[Citation, ...]
    loads: int
    last_loaded: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.entry.id,
            "path": str(self.entry.path),
            "written_by": self.written_by,
            "run": self.run,
            "session": self.session,
            "written_at": self.written_at,
            "citations": [{"ref": c.ref, "state": c.state} for c in self.citations],
            "loads": self.loads,
            "last_loaded": self.last_loaded,
        }

    def lines(self, now: float | None = None) -> list[str]:
        """`wave memory show`'s words, one fact a line; with `now`, the time as days ago (the
        browser's pane)."""
        by = self.written_by + (f" (run {self.run})" if self.run else "")
        where = f" in session {self.session}" if self.session else ""
        when = f" on {self.written_at}" if self.written_at else ""
        if now is not None and self.written_s is not None:
            days = max(0, int((now - self.written_s) // 86_400))
            when = ", today" if days == 0 else f", {days} day{'s' * (days != 1)} ago"
        out = [f"written by {by}{where}{when}"]
        if self.citations:
            checked = ", ".join(f"{c.ref} {c.state}" for c in self.citations)
            out.append(f"citations (checked today): {checked}")
        if not self.loads:
            out.append("never loaded")
        else:
            times = "once" if self.loads == 1 else f"{self.loads} times"
            last = f", last on {self.last_loaded[:10]}" if self.last_loaded else ""
            out.append(f"loaded {times}{last}")
        return out


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


# req: MR5
def provenance_for(paths: WavePaths, entry: MemoryEntry) -> EntryProvenance:
    written = provenance_of(paths.project_dir, entry.path)
    refs = [r.text for r in find_references(entry.body)]
    missing = set(missing_references({"e": entry.body}, paths.project_root).get("e", []))
    store = CitationStore(paths.citations_file, paths.project_root)
    changed = {c.ref for c in store.check({"e": entry.body}).get("e", [])}
    citations = tuple(
        Citation(ref, "missing" if ref in missing else "changed" if ref in changed else "ok")
        for ref in refs
    )
    count = read_loads(paths.memory_loads_file).get(entry.id)
    return EntryProvenance(
        entry=entry,
        written_by=written.written_by if written is not None else "user",
        run=written.run if written is not None else None,
        session=written.session if written is not None else None,
        written_at=_iso(written.written_at) if written is not None else None,
        written_s=written.written_at if written is not None else None,
        citations=citations,
        loads=count.loads if count is not None else 0,
        last_loaded=count.last_loaded if count is not None else None,
    )
