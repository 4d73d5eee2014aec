"""What the memory browser shows for catalog entries (no Textual here)."""

from __future__ import annotations

from collections.abc import Iterable

from wave_tui.agent.session import MemoryEntry, preview_body, stale_reminder
from wave_tui.config.paths import WavePaths
from wave_tui.tui.format import show_path

__all__ = ["entry_location", "grouped", "matches", "preview_body", "stale_reminder"]

SCOPE_ORDER = ("project", "user", "auto", "rule")
SCOPE_LABELS = {
    "project": "Project AGENTS.md",
    "user": "User AGENTS.md",
    "auto": "Auto memory",
    "rule": "Rules",
}
GROUP_KEY_PREFIX = "group:"


def matches(entry: MemoryEntry, needle: str) -> bool:
    """Filter-as-you-type: every word must appear in the title, body, scope, type or file."""
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
        )
    ).casefold()
    return all(word in haystack for word in needle.casefold().split())


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
