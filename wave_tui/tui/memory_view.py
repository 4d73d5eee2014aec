"""What the memory browser shows for catalog entries (no Textual here)."""

from __future__ import annotations

from collections.abc import Iterable

from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import preview_body, stale_reminder
from wave_tui.session.types import ChangedRef, MemoryEntry
from wave_tui.tui.format import show_path

__all__ = [
    "delete_consequence",
    "entry_location",
    "grouped",
    "matches",
    "missing_note",
    "preview_body",
    "stale_reminder",
]

SCOPE_ORDER = ("project", "team", "user", "auto", "rule")
SCOPE_LABELS = {
    "project": "Project AGENTS.md",
    "team": "Team memory (.wave/memory)",
    "user": "User AGENTS.md",
    "auto": "Auto memory",
    "rule": "Rules",
}
GROUP_KEY_PREFIX = "group:"
CHANGED_LINES_SHOWN = 6  # of a changed symbol's old and new definition, in the preview


# req: MX10
def matches(entry: MemoryEntry, needle: str) -> bool:
    """Filter-as-you-type: every word must appear in the title, body (content, not only the
    title), scope, type or file — or be "stale" / "missing" for entries marked so."""
    if not needle.strip():
        return True
    haystack = " ".join(
        (
            entry.title,
            entry.body,
            entry.scope,
            entry.type or "",
            entry.path.name,
            entry.status or "",
            "stale" if entry.stale or entry.missing_refs else "",
            "missing " + " ".join(entry.missing_refs) if entry.missing_refs else "",
            "citation changed " + " ".join(c.ref for c in entry.changed_refs)
            if entry.changed_refs
            else "",
            "unused never loaded in 30 days" if entry.unused else "",
            "conflict contradicts" if entry.conflicts else "",
        )
    ).casefold()
    return all(word in haystack for word in needle.casefold().split())


def flag_label(entry: MemoryEntry) -> str:
    """The badge of the list: what cites missing things wins over plain age."""
    if entry.conflicts:
        return "conflict"
    if entry.missing_refs:
        return "missing"
    if entry.changed_refs:
        return "changed"
    if entry.unused:
        return "unused"
    return "stale" if entry.stale else ""


# req: MM6
def use_note(entry: MemoryEntry) -> str | None:
    """How often a rule or path-scoped memory was loaded, for the preview."""
    if entry.loads is None:
        return None
    if entry.unused:
        return "never loaded in 30 days"
    if not entry.loads:
        return "not loaded yet"
    times = "once" if entry.loads == 1 else f"{entry.loads} times"
    return f"loaded {times}, last on {(entry.last_loaded or '')[:10]}"


# req: MX6
def missing_note(entry: MemoryEntry) -> str | None:
    """What the entry cites that is no longer in the project, or whose text changed since the
    memory was written (old and new text), for the preview."""
    notes: list[str] = []
    if entry.missing_refs:
        notes.append("Cites what no longer exists: " + ", ".join(entry.missing_refs))
    notes += [changed_citation_note(change) for change in entry.changed_refs]
    notes += [f"contradicts {conflict}" for conflict in entry.conflicts]
    return "\n".join(notes) or None


# req: MM1
def changed_citation_note(change: ChangedRef) -> str:
    """`citation changed: src/a.py:3` with the text as it was and as it is now."""
    return "\n".join(
        [
            f"citation changed: {change.ref}",
            *(f"  was: {line}" for line in _lines(change.old)),
            *(f"  now: {line}" for line in _lines(change.new)),
        ]
    )


def _lines(text: str, limit: int = CHANGED_LINES_SHOWN) -> list[str]:
    lines = text.splitlines() or [""]
    return lines[:limit] + (["…"] if len(lines) > limit else [])


def delete_consequence(entry: MemoryEntry) -> str | None:
    """Exactly what a delete removes; None: this entry cannot be deleted on its own."""
    if entry.item_index is not None:
        return f"Only this item is removed; the rest of {entry.path.name} stays as it is."
    if entry.scope == "auto":
        return (
            f"The whole topic file {entry.path.name} is deleted, and its line in MEMORY.md "
            "is removed."
        )
    if entry.scope == "rule":
        return f"The whole rule file {entry.path.name} is deleted."
    return None


def grouped(entries: Iterable[MemoryEntry]) -> list[tuple[str, list[MemoryEntry]]]:
    """(scope, entries) in the fixed scope order; empty scopes left out."""
    by_scope: dict[str, list[MemoryEntry]] = {scope: [] for scope in SCOPE_ORDER}
    for entry in entries:
        by_scope.setdefault(entry.scope, []).append(entry)
    return [(scope, items) for scope, items in by_scope.items() if items]


def entry_location(entry: MemoryEntry, paths: WavePaths) -> str:
    """Where the entry is stored; the auto-memory dir's project id is elided (it encodes a path)."""
    try:
        relative = entry.path.relative_to(paths.memory_dir).as_posix()
    except ValueError:
        return show_path(entry.path, paths)
    return f"~/.wave/projects/…/memory/{relative}"
