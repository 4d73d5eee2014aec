"""Search memory entries by title *and* content (MX10): the browser's filter and
`wave memory search` use this one function."""

from __future__ import annotations

from wave_tui.memory.catalog import MemoryEntry


# req: MX10
def entry_matches(entry: MemoryEntry, query: str) -> bool:
    """Every word of the query occurs (case-insensitively) in the id, title or body."""
    words = query.casefold().split()
    haystack = f"{entry.id}\n{entry.title}\n{entry.body}".casefold()
    return bool(words) and all(word in haystack for word in words)


def search_entries(entries: list[MemoryEntry], query: str) -> list[MemoryEntry]:
    """Matching entries, those matching in the title first, then catalog order."""
    found = [e for e in entries if entry_matches(e, query)]
    words = query.casefold().split()
    in_title = [e for e in found if all(w in e.title.casefold() for w in words)]
    return in_title + [e for e in found if e not in in_title]
