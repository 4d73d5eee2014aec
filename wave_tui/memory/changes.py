"""Change notifications: files the agent read in full that changed on disk since (N1–N7).

Before each request the read state is compared with the disk. Only an mtime move triggers a read,
and content decides: a bare `touch` is silent (N2). Whatever is detected is written back into the
read state at once, so a change is told exactly once (N5) — and the agent's own Write/Edit already
left the new content there, so those never show (N4). The wording states only the verified fact:
the file changed outside this agent's own tool calls. It never guesses the writer and never asks
the model to keep anything from the user.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from wave_tui.llm.types import Message
from wave_tui.tools.read_state import ReadEntry, ReadState
from wave_tui.tools.text_files import SNIFF_BYTES, split_lines

MAX_SNIPPET_CHARS = 8192
MAX_FILES_PER_TURN = 10
MAX_TOTAL_CHARS_PER_TURN = 24_000
# Below this much remaining budget a snippet would be mostly truncation marker; list the file
# by name instead.
MIN_SNIPPET_CHARS = 200
# One minified line must not eat a whole snippet budget.
MAX_LINE_CHARS = 500
CONTEXT_LINES = 3
MAX_OVERFLOW_NAMES = 50
MAX_SUMMARY_NAMES = 5

ChangeKind = Literal["modified", "deleted", "unreadable"]

_HEADER = (
    "The file {name} changed on disk since you last read it, and not through your own "
    "Write/Edit. Current differences against the version you read:"
)
_DELETED = "The file {name} was deleted since you read it."
_UNREADABLE = (
    "The file {name} changed on disk since you last read it, and not through your own "
    "Write/Edit; it is no longer readable as UTF-8 text."
)
_FOOTER = "Take these changes into account; re-read a file before editing it if needed."


@dataclass(frozen=True)
class FileChange:
    path: Path
    kind: ChangeKind
    added: int = 0
    removed: int = 0
    snippet: str = ""


@dataclass
class ChangeReport:
    changes: list[FileChange] = field(default_factory=list)
    overflow: list[Path] = field(default_factory=list)
    display: Callable[[Path], str] = field(default=str, repr=False)

    def __bool__(self) -> bool:
        return bool(self.changes or self.overflow)

    @property
    def paths(self) -> list[Path]:
        return [c.path for c in self.changes] + self.overflow

    def message(self) -> Message | None:
        """One meta user message for every change of this request, or None when nothing changed."""
        if not self:
            return None
        parts = [_describe(change, self.display(change.path)) for change in self.changes]
        if self.overflow:
            parts.append(_overflow_line(self.overflow, self.display))
        parts.append(_FOOTER)
        text = "<system-reminder>\n" + "\n\n".join(parts) + "\n</system-reminder>"
        return Message.user(text, is_meta=True, changedFiles=[str(p) for p in self.paths])

    def summary_line(self) -> str:
        """A short line for the UI, e.g. "2 files changed since read: a.py, b.py"."""
        if not self:
            return ""
        names = [
            self.display(c.path) + (" (deleted)" if c.kind == "deleted" else "")
            for c in self.changes
        ] + [self.display(p) for p in self.overflow]
        shown = ", ".join(names[:MAX_SUMMARY_NAMES])
        if len(names) > MAX_SUMMARY_NAMES:
            shown += f", +{len(names) - MAX_SUMMARY_NAMES} more"
        noun = "file" if len(names) == 1 else "files"
        return f"{len(names)} {noun} changed since read: {shown}"


@dataclass(frozen=True)
class _Detected:
    path: Path
    kind: ChangeKind
    old: str = ""
    new: str = ""


def detect_changes(
    read_state: ReadState, display: Callable[[Path], str] | None = None
) -> ChangeReport:
    """Compare every fully read entry with the disk; update the read state so nothing repeats.

    Unchanged files cost one `os.stat` each; a file is opened only when its mtime moved.
    """
    detected: list[_Detected] = []
    for entry in read_state:
        if not entry.is_full or entry.content is None:
            continue  # N3: a partial read gives no reliable baseline to diff against
        found = _check(read_state, entry)
        if found is not None:
            detected.append(found)
    detected.sort(key=lambda d: str(d.path))
    return _build_report(detected, display or str)


def _check(read_state: ReadState, entry: ReadEntry) -> _Detected | None:
    try:
        st = os.stat(entry.path)
    except FileNotFoundError:
        read_state.forget(entry.path)
        return _Detected(entry.path, "deleted")
    except OSError:
        return None  # transient (permissions, stale mount): try again next request
    if st.st_mtime_ns == entry.mtime_ns:
        return None
    try:
        data = Path(entry.path).read_bytes()
    except FileNotFoundError:
        read_state.forget(entry.path)
        return _Detected(entry.path, "deleted")
    except OSError:
        read_state.forget(entry.path)
        return _Detected(entry.path, "unreadable")
    text = _decode(data)
    if text is None:
        read_state.forget(entry.path)
        return _Detected(entry.path, "unreadable")
    if text == entry.content:
        # N2: remember the new mtime so the file is not re-read on every request.
        read_state.record(replace(entry, mtime_ns=st.st_mtime_ns))
        return None
    read_state.record(entry.with_content(text, st.st_mtime_ns))
    return _Detected(entry.path, "modified", old=entry.content or "", new=text)


def _decode(data: bytes) -> str | None:
    if b"\x00" in data[:SNIFF_BYTES]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _build_report(detected: list[_Detected], display: Callable[[Path], str]) -> ChangeReport:
    report = ChangeReport(display=display)
    used = 0
    for item in detected:
        if len(report.changes) >= MAX_FILES_PER_TURN:
            report.overflow.append(item.path)
            continue
        if item.kind != "modified":
            report.changes.append(FileChange(item.path, item.kind))
            continue
        budget = min(MAX_SNIPPET_CHARS, MAX_TOTAL_CHARS_PER_TURN - used)
        if budget < MIN_SNIPPET_CHARS:
            report.overflow.append(item.path)
            continue
        lines, added, removed = render_diff(item.old, item.new)
        snippet = truncate_lines(lines, budget)
        used += len(snippet)
        report.changes.append(FileChange(item.path, "modified", added, removed, snippet))
    return report


def render_diff(old: str, new: str) -> tuple[list[str], int, int]:
    """Hunks of context and added lines numbered as in the new file; removals only counted.

    Returns (lines, added, removed). Hunks are separated by a `...` line.
    """
    a, b = split_lines(old), split_lines(new)
    width = len(str(max(len(b), 1)))
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    added = removed = 0
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        if out:
            out.append("...")
        for tag, i1, i2, j1, j2 in group:
            if tag in ("delete", "replace"):
                removed += i2 - i1
                out.append(f"- {_plural(i2 - i1)} removed")
            prefix = "  " if tag == "equal" else "+ "
            if tag != "delete":
                if tag != "equal":
                    added += j2 - j1
                out.extend(f"{prefix}{j + 1:>{width}} | {_clip(b[j])}" for j in range(j1, j2))
    return out, added, removed


def truncate_lines(lines: list[str], budget: int = MAX_SNIPPET_CHARS) -> str:
    """`lines` joined, cut at a line boundary to at most `budget` chars with a count marker."""
    text = "\n".join(lines)
    if len(text) <= budget:
        return text
    marker_room = len(_marker(len(lines))) + 1
    kept: list[str] = []
    size = 0
    for line in lines:
        cost = len(line) + (1 if kept else 0)
        if size + cost + marker_room > budget:
            break
        kept.append(line)
        size += cost
    return "\n".join([*kept, _marker(len(lines) - len(kept))])


def _marker(count: int) -> str:
    return f"[... {_plural(count)} truncated ...]"


def _plural(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def _clip(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return line[:MAX_LINE_CHARS] + f" [... {len(line) - MAX_LINE_CHARS} chars cut]"


def _describe(change: FileChange, name: str) -> str:
    if change.kind == "deleted":
        return _DELETED.format(name=name)
    if change.kind == "unreadable":
        return _UNREADABLE.format(name=name)
    return _HEADER.format(name=name) + "\n" + change.snippet


def _overflow_line(paths: list[Path], display: Callable[[Path], str]) -> str:
    names = ", ".join(display(p) for p in paths[:MAX_OVERFLOW_NAMES])
    rest = len(paths) - MAX_OVERFLOW_NAMES
    tail = f", and {rest} more" if rest > 0 else ""
    noun = "file" if len(paths) == 1 else "files"
    return f"{len(paths)} more {noun} changed: {names}{tail}"
