"""Marks the browser and `wave memory list` add to catalog entries after listing them:
`citation changed` (MM1) and use counts with "never loaded in 30 days" (MM6).

Separate from `catalog` because each reads more than the memory files: the cited code and the
citation store, the append-only load log.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import MemoryEntry, build_catalog
from wave_tui.memory.citations import CitationStore
from wave_tui.memory.conflicts import Conflict, Side, conflict_note, open_conflicts
from wave_tui.memory.frontmatter import parse_frontmatter
from wave_tui.memory.loads import LoadCount, never_loaded_recently, read_loads


# req: MM1
# req: MR6
def with_changed_refs(entries: list[MemoryEntry], paths: WavePaths) -> list[MemoryEntry]:
    """The entries, each memory citing `path:line` or `path#symbol` whose text has changed since
    it was written marked `citation changed` (topic files, AGENTS.md items and rules alike);
    pins of memories gone are dropped."""
    store = CitationStore(paths.citations_file, paths.project_root)
    checked = {e.id: e.body for e in entries}
    changed = store.check(checked)
    store.forget_except(checked.values())
    return [
        replace(e, changed_refs=tuple(changed[e.id])) if e.id in changed else e for e in entries
    ]


def pin_citations(entries: list[MemoryEntry], paths: WavePaths) -> None:
    """Pin what these freshly written entries cite, as the code is now."""
    CitationStore(paths.citations_file, paths.project_root).pin(e.body for e in entries)


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


def side_text(entry: MemoryEntry) -> str:
    """An entry's instruction or fact alone, as a side of a possible contradiction reads."""
    text = entry.body
    if entry.scope in ("auto", "team", "rule"):
        text = parse_frontmatter(text).body
    return " ".join(text.split())


def side_of(entry: MemoryEntry) -> Side:
    """An entry as one side of a possible contradiction: its instruction or fact alone."""
    return Side(entry.id, entry.scope, side_text(entry))


def sides_of(entries: list[MemoryEntry]) -> list[Side]:
    return [side for e in entries if (side := side_of(e)).text]


# req: MM2
def entry_conflicts(entries: list[MemoryEntry], paths: WavePaths) -> list[Conflict]:
    """The saved contradictions whose two sides still read as they did."""
    # The texts alone: a `Side` per entry made most of a 10,000-entry listing's cost.
    current = {e.id: text for e in entries if (text := side_text(e))}
    return open_conflicts(paths.conflicts_file, current)


# req: MM2
def with_conflicts(entries: list[MemoryEntry], paths: WavePaths) -> list[MemoryEntry]:
    """Entries marked with the open contradictions they are part of (the browser's filter)."""
    marks: dict[str, list[str]] = {}
    for conflict in entry_conflicts(entries, paths):
        marks.setdefault(conflict.a.id, []).append(f"{conflict.b.id}: {conflict.reason}")
        marks.setdefault(conflict.b.id, []).append(f"{conflict.a.id}: {conflict.reason}")
    if not marks:
        return entries
    return [replace(e, conflicts=tuple(marks[e.id])) if e.id in marks else e for e in entries]


# req: MM2
def fork_conflict_note(paths: WavePaths) -> str | None:
    """What the extraction fork is told of open contradictions before it writes; nothing (and
    no catalog built) while no check has found any."""
    try:
        if paths.conflicts_file.stat().st_size <= len("[]"):
            return None
    except OSError:
        return None
    return conflict_note(entry_conflicts(build_catalog(paths), paths))
