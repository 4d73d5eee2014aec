"""Grep's query and output: one formatter for both backends, fed rows lazily.

A backend hands over a `Listing`: the output rows in order (produced only as far as they are
shown), how many there are in all, and the summary line. Output stops at `head_limit` rows or
`MAX_OUTPUT_CHARS`, so a search with 400,000 matching lines renders a few hundred of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import field
from pathlib import Path
from typing import Literal

from wave_tui.config.records import record
from wave_tui.tools.base import ToolResult

OutputMode = Literal["files_with_matches", "content", "count"]
MAX_OUTPUT_CHARS = 30_000
MAX_LINE_CHARS = 1000

Row = tuple[str, Path | None]  # an output line, and the file whose content it shows
SEPARATOR = "--"


@record(frozen=False)
class FileHits:
    path: Path
    lines: list[tuple[int, str, bool]] = field(default_factory=list)  # (number, text, is_match)
    count: int = 0  # matching lines


@record
class GrepQuery:
    pattern: str
    root: Path  # a directory or a single file
    mode: OutputMode
    glob: str | None
    file_type: str | None
    ignore_case: bool
    multiline: bool
    before: int
    after: int

    @property
    def with_context(self) -> bool:
        return self.before > 0 or self.after > 0


@record
class Listing:
    rows: Iterable[Row]  # read only as far as the output goes
    total: int  # rows in all
    summary: str


def clip(text: str) -> str:
    if len(text) <= MAX_LINE_CHARS:
        return text
    return f"{text[:MAX_LINE_CHARS]}… [{len(text) - MAX_LINE_CHARS} more characters]"


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def summary_of(mode: OutputMode, files: int, matches: int) -> str:
    if mode == "files_with_matches":
        return f"Found {plural(files, 'file', 'files')}"
    if mode == "count":
        return f"Found {plural(matches, 'match', 'matches')} in {files} files"
    return f"Found {plural(matches, 'matching line', 'matching lines')}"


def content_rows(
    path: Path, lines: Iterable[tuple[int, str, bool]], numbers: bool, first: bool, context: bool
) -> Iterator[Row]:
    """One file's rows in content mode; `first`: no separator before its first line."""
    name = str(path)
    previous: int | None = None
    for number, text, is_match in lines:
        gap = not first if previous is None else number > previous + 1
        if context and gap:
            yield SEPARATOR, None
        sep = ":" if is_match else "-"
        prefix = f"{name}{sep}{number}{sep}" if numbers else f"{name}{sep}"
        yield prefix + clip(text), path
        previous = number


def newest_first(paths: Iterable[str]) -> list[str]:
    """Most recently modified first, ties (and unreadable files, last) by path."""

    def key(path: str) -> tuple[int, str]:
        try:
            return (-os.stat(path).st_mtime_ns, path)
        except OSError:
            return (0, path)

    return [path for _, path in sorted(map(key, paths))]


def listing_of_hits(hits: list[FileHits], q: GrepQuery, numbers: bool) -> Listing:
    """The Python backend's structured hits as a listing."""
    matches = sum(h.count for h in hits)
    summary = summary_of(q.mode, len(hits), matches)
    if q.mode == "files_with_matches":
        ordered = newest_first(str(h.path) for h in hits)
        return Listing([(p, None) for p in ordered], len(ordered), summary)
    hits = sorted(hits, key=lambda h: str(h.path))
    if q.mode == "count":
        return Listing([(f"{h.path}:{h.count}", None) for h in hits], len(hits), summary)
    rows: list[Row] = []
    for h in hits:
        rows += content_rows(h.path, h.lines, numbers, not rows, q.with_context)
    return Listing(rows, len(rows), summary)


def format_listing(listing: Listing, head_limit: int | None) -> ToolResult:
    if listing.total == 0:
        return ToolResult(content="No matches found", summary="No matches")
    limited = head_limit is not None and listing.total > head_limit
    cap = head_limit if head_limit is not None and limited else listing.total
    taken: list[Row] = []
    size = 0
    for row in listing.rows:  # up to the cap, and one row past the size limit at most
        if len(taken) >= cap or size > MAX_OUTPUT_CHARS:
            break
        taken.append(row)
        size += len(row[0]) + 1
    notes: list[str] = []
    if limited:
        if len(taken) == cap:
            while taken and taken[-1][0] == SEPARATOR:
                taken.pop()
        notes.append(f"(Output limited to the first {head_limit} of {listing.total} lines.)")
    size, kept = 0, 0
    for text, _ in taken:
        size += len(text) + 1
        if size > MAX_OUTPUT_CHARS:
            break
        kept += 1
    if kept < len(taken):
        taken = taken[:kept]
        notes.append(
            f"(Output truncated at {MAX_OUTPUT_CHARS} characters; use head_limit, a glob or a "
            "narrower path to see the rest.)"
        )
    content = "\n".join(text for text, _ in taken)
    if notes:
        content += "\n\n" + "\n".join(notes)
    context_paths = list(dict.fromkeys(p for _, p in taken if p is not None))
    return ToolResult(content=content, summary=listing.summary, context_paths=context_paths)
