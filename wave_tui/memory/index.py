"""Loading the MEMORY.md index for the system prompt, with its two caps (A2, X1)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from wave_tui.config.records import record

INDEX_MAX_LINES = 200
INDEX_MAX_CHARS = 25_000
POINTER_MAX_CHARS = 150
LINE_ADVICE_CHARS = 200  # what the warning recommends per index line (as Claude Code does)

# A UTF-8 character is at most 4 bytes, so this many bytes always decode to more than
# INDEX_MAX_CHARS characters: nothing past it can ever be kept.
HEAD_BYTES = 4 * (INDEX_MAX_CHARS + 2)
_CHUNK = 1 << 20
_PREVIEW_BYTES = 512
_PREVIEW_CHARS = 80

Cap = Literal["lines", "characters"]


@record
class IndexView:
    text: str
    truncated_by: frozenset[Cap]
    total_lines: int
    kept_lines: int
    dropped_entries: int  # lines not loaded at all
    warning: str | None
    first_line_cut: bool = False  # the first line alone was over INDEX_MAX_CHARS: left out

    @property
    def truncated(self) -> bool:
        return bool(self.truncated_by)


EMPTY_INDEX = IndexView("", frozenset(), 0, 0, 0, None)


@record
class _Scan:
    head: bytes
    size: int
    total_lines: int


def _scan(path: Path) -> _Scan | None:
    """Keep only the head in memory; count lines over the whole file in chunks."""
    head = bytearray()
    newlines = 0
    size = 0
    last = b""
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                if len(head) < HEAD_BYTES:
                    head += chunk[: HEAD_BYTES - len(head)]
                newlines += chunk.count(b"\n")
                size += len(chunk)
                last = chunk[-1:]
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None
    total = newlines + (1 if size and last != b"\n" else 0)
    return _Scan(bytes(head), size, total)


def _read_at(path: Path, offset: int, count: int) -> bytes:
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            return fh.read(count)
    except OSError:
        return b""


def _shorten(line: str) -> str:
    line = line.replace("\ufffd", "").strip()
    return line if len(line) <= _PREVIEW_CHARS else line[: _PREVIEW_CHARS - 1] + "…"


# req: A2
# req: X1
def load_index(path: Path) -> IndexView:
    """Read MEMORY.md: first 200 lines, then at most 25,000 characters cut back to a newline.

    A missing file is an empty index. The cost is bounded by the caps, not by the file size
    (beyond one chunked pass that counts lines).
    """
    scan = _scan(path)
    if scan is None or scan.size == 0:
        return EMPTY_INDEX
    # surrogateescape round-trips bytes exactly, so byte offsets can be recovered below.
    text = scan.head.decode("utf-8", "surrogateescape")
    head_is_whole = scan.size <= len(scan.head)
    if head_is_whole:
        text = text.rstrip("\r\n")

    truncated: set[Cap] = set()
    if scan.total_lines > INDEX_MAX_LINES:
        truncated.add("lines")
        cut = -1
        for _ in range(INDEX_MAX_LINES):
            cut = text.find("\n", cut + 1)
            if cut < 0:
                break
        if cut >= 0:
            text = text[:cut]

    first_line_cut = False
    if len(text) > INDEX_MAX_CHARS:
        truncated.add("characters")
        window = text[: INDEX_MAX_CHARS + 1]
        nl = window.rfind("\n")
        if nl >= 0:
            text = window[:nl]
        else:
            text = ""  # A2: never cut mid-line, so a first line over the cap is left out whole
            first_line_cut = True

    raw_kept = text.encode("utf-8", "surrogateescape")
    clean = raw_kept.decode("utf-8", "replace")
    if not truncated:
        if not text.strip():
            return IndexView("", frozenset(), scan.total_lines, 0, 0, None)
        kept = text.count("\n") + 1
        return IndexView(clean, frozenset(), scan.total_lines, kept, 0, None)

    kept = text.count("\n") + 1 if text else 0
    dropped = max(0, scan.total_lines - kept)
    first_dropped: str | None = None
    if dropped:
        preview = _read_at(path, len(raw_kept) + 1 if raw_kept else 0, _PREVIEW_BYTES)
        first_dropped = _shorten(preview.decode("utf-8", "replace").split("\n", 1)[0])
    view_caps = frozenset(truncated)
    warning = _warning(view_caps, scan.total_lines, dropped, first_dropped, first_line_cut)
    return IndexView(clean, view_caps, scan.total_lines, kept, dropped, warning, first_line_cut)


def _warning(
    caps: frozenset[Cap],
    total_lines: int,
    dropped: int,
    first_dropped: str | None,
    first_line_cut: bool,
) -> str:
    reasons: list[str] = []
    if "lines" in caps:
        reasons.append(f"the {INDEX_MAX_LINES}-line limit (it has {total_lines} lines)")
    if "characters" in caps:
        reasons.append(f"the {INDEX_MAX_CHARS:,}-character limit")
    parts = [
        f"> WARNING: MEMORY.md exceeds {' and '.join(reasons)}, so only part of it was loaded."
    ]
    if first_line_cut:
        parts.append(
            f"Its first line alone is longer than {INDEX_MAX_CHARS:,} characters, so nothing "
            "could be loaded without cutting a line."
        )
    if dropped:
        noun = "entry (line)" if dropped == 1 else "entries (lines)"
        left_out = f"{dropped} {noun} left out"
        if first_dropped:
            left_out += f', starting with "{first_dropped}"'
        parts.append(left_out + ".")
    parts.append(
        f"Keep each index line under ~{LINE_ADVICE_CHARS} characters and move detail into "
        "topic files."
    )
    return " ".join(parts)


def check_index_write(text: str) -> str | None:
    """A note to append to a Write/Edit result when MEMORY.md now breaks a cap, else None."""
    problems: list[str] = []
    lines = text.rstrip("\r\n").split("\n") if text.strip() else []
    if len(lines) > INDEX_MAX_LINES:
        problems.append(
            f"it now has {len(lines)} lines, and only the first {INDEX_MAX_LINES} are loaded into "
            f"future conversations, so the last {len(lines) - INDEX_MAX_LINES} would be dropped"
        )
    if len(text.rstrip("\r\n")) > INDEX_MAX_CHARS:
        problems.append(
            f"it now has {len(text.rstrip(chr(13) + chr(10))):,} characters; only the first "
            f"{INDEX_MAX_CHARS:,} are loaded"
        )
    long_lines = [i for i, line in enumerate(lines, 1) if len(line) > POINTER_MAX_CHARS]
    if long_lines:
        where = ", ".join(str(i) for i in long_lines[:5]) + (", …" if len(long_lines) > 5 else "")
        problems.append(
            f"{len(long_lines)} line(s) are longer than {POINTER_MAX_CHARS} characters "
            f"(line {where})"
        )
    if lines and lines[0].strip() == "---":
        problems.append("it starts with frontmatter, but the index must have none")
    if not problems:
        return None
    return (
        "Note: MEMORY.md is an index: "
        + "; ".join(problems)
        + f". Keep one short pointer line per memory (under ~{POINTER_MAX_CHARS} characters) "
        "and move detail into topic files."
    )
