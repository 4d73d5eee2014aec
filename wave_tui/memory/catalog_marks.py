"""Marks the browser and `wave memory list` add to catalog entries after listing them:
`citation changed` (MM1) and use counts with "never loaded in 30 days" (MM6).

Separate from `catalog` because each reads more than the memory files: the cited code and the
citation store, the append-only load log.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import MemoryEntry
from wave_tui.memory.citations import CitationStore
from wave_tui.memory.loads import LoadCount, never_loaded_recently, read_loads


# req: MM1
def with_changed_refs(entries: list[MemoryEntry], paths: WavePaths) -> list[MemoryEntry]:
    """The entries, each memory citing `path:line` or `path#symbol` whose text has changed since
    it was written marked `citation changed`; pins of memories gone are dropped."""
    store = CitationStore(paths.citations_file, paths.project_root)
    checked = {e.id: e.body for e in entries if e.scope != "rule"}
    changed = store.check(checked)
    store.forget_except(checked.values())
    return [
        replace(e, changed_refs=tuple(changed[e.id])) if e.id in changed else e for e in entries
    ]


# req: MM6
def with_loads(entries: list[MemoryEntry], paths: WavePaths, now: datetime) -> list[MemoryEntry]:
    """Rules and path-scoped memories with how often and when they were last loaded, and
    whether they were never loaded in 30 days."""
    counts = read_loads(paths.memory_loads_file)
    out: list[MemoryEntry] = []
    for entry in entries:
        if entry.status is None:
            out.append(entry)
            continue
        count = counts.get(entry.id)
        loads, last = (count.loads, count.last_loaded) if count is not None else (0, None)
        unused = never_loaded_recently(LoadCount(loads, last), entry.age_days, now)
        out.append(replace(entry, loads=loads, last_loaded=last, unused=unused))
    return out
