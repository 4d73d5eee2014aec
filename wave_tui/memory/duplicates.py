"""Duplicates across memory sources: a new memory that repeats an AGENTS.md item or another
memory, by normalised text or a close match (MX9).

Auto memories are compared by their body (frontmatter and headings left out); AGENTS.md items by
their text. A close match (`similarity.py`) is a `difflib` ratio of at least `CLOSE_MATCH_RATIO`
on normalised text, which catches reworded punctuation, case and small edits but not merely
related topics; long texts are compared by shingles so that the check stays bounded in time.
"""

from __future__ import annotations

import re
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.memory.auto_memory import INDEX_FILENAME
from wave_tui.memory.catalog import MemoryEntry, build_catalog
from wave_tui.memory.entries import normalise
from wave_tui.memory.frontmatter import parse_frontmatter
from wave_tui.memory.rules import RuleSet
from wave_tui.memory.similarity import Compared, close_ratio

_HEADING_LINE_RE = re.compile(r"^\s*#{1,6}\s.*$", re.MULTILINE)


# req: MX9
@record
class Duplicate:
    entry: MemoryEntry  # the existing entry repeated
    ratio: float  # 1.0 = the same normalised text

    def describe(self) -> str:
        how = "repeats" if self.ratio >= 1.0 else f"closely matches ({self.ratio:.0%})"
        return f"{how} {self.entry.id} ({self.entry.path}): {_short(self.entry.body)}"


def _short(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def comparable_text(entry_or_text: MemoryEntry | str) -> str:
    """Normalised text to compare: an auto memory's body without frontmatter or headings."""
    if isinstance(entry_or_text, str):
        return normalise(entry_or_text)
    body = entry_or_text.body
    if entry_or_text.scope == "auto":
        body = _HEADING_LINE_RE.sub("", parse_frontmatter(body).body)
    return normalise(body)


def find_duplicate(
    text: str,
    entries: list[MemoryEntry],
    *,
    exclude_path: Path | None = None,
    auto_body: bool = False,
) -> Duplicate | None:
    """The existing entry `text` repeats most closely, or None. `auto_body`: the text is a whole
    memory file, compared without its frontmatter and headings."""
    key = (
        normalise(_HEADING_LINE_RE.sub("", parse_frontmatter(text).body))
        if auto_body
        else normalise(text)
    )
    if not key:
        return None
    compared = Compared(key)
    best: Duplicate | None = None
    for entry in entries:
        if entry.scope == "rule" or (exclude_path is not None and _same(entry.path, exclude_path)):
            continue
        ratio = close_ratio(compared, Compared(comparable_text(entry)))
        if ratio is not None and (best is None or ratio > best.ratio):
            best = Duplicate(entry, ratio)
    return best


def near_duplicates(entries: list[MemoryEntry]) -> list[tuple[MemoryEntry, Duplicate]]:
    """Pairs of entries (later, earlier) whose texts match closely, for `--duplicates`."""
    pairs: list[tuple[MemoryEntry, Duplicate]] = []
    texts = [(e, Compared(comparable_text(e))) for e in entries if e.scope != "rule"]
    for i, (entry, key) in enumerate(texts):
        if not key.text:
            continue
        for other, other_key in texts[:i]:
            if _same(entry.path, other.path) and entry.scope == "auto":
                continue
            ratio = close_ratio(key, other_key)
            if ratio is not None:
                pairs.append((entry, Duplicate(other, ratio)))
    return pairs


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return a == b


def duplicate_note(written: Path, paths: WavePaths, text: str | None = None) -> str | None:
    """For a memory file just written (or, with `text`, proposed): one line naming the entry it
    repeats, or None."""
    if written.name == INDEX_FILENAME:
        return None
    if text is None:
        try:
            text = written.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    entries = build_catalog(paths, rules=RuleSet([], paths.project_root))
    found = find_duplicate(text, entries, exclude_path=written, auto_body=True)
    if found is None:
        return None
    return (
        f"Note: this memory {found.describe()}. Keep one: merge them or delete the repeat, "
        "unless they say different things."
    )
