"""Change notifications: files the agent read in full that changed on disk since (N1–N7).

Before each request the read state is compared with the disk. Only an mtime move triggers a read,
and content decides: a bare `touch` is silent (N2). Whatever is detected is written back into the
read state at once, so a change is told exactly once (N5) — and the agent's own Write/Edit already
left the new content there, so those never show (N4). The wording states only the verified fact:
the file changed outside this agent's own tool calls. It never guesses the writer and never asks
the model to keep anything from the user.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field, replace
from pathlib import Path
from typing import Literal

from wave_tui.config.dir_watch import DirWatch
from wave_tui.config.records import record
from wave_tui.files.read_state import ReadEntry, ReadState, content_hash
from wave_tui.files.text_files import SNIFF_BYTES, split_lines
from wave_tui.llm.types import Message

MAX_SNIPPET_CHARS = 8192
MAX_FILES_PER_TURN = 10
MAX_TOTAL_CHARS_PER_TURN = 24_000
# Below this much remaining budget a snippet would be mostly truncation marker; list the file
# by name instead.
MIN_SNIPPET_CHARS = 200
# One minified line must not eat a whole snippet budget.
MAX_LINE_CHARS = 500
CONTEXT_LINES = 3
# difflib turns quadratic on many scattered edits: beyond this many (old × new) differing lines
# the changed region is shown whole instead.
MAX_DIFF_CELLS = 1_000_000
MAX_OVERFLOW_NAMES = 50
MAX_SUMMARY_NAMES = 5

ChangeKind = Literal["modified", "deleted", "unreadable"]
_Opcode = tuple[str, int, int, int, int]

_HEADER = (
    "The file {name} changed on disk since you last read it, and not through your own "
    "Write/Edit. Current differences against the version you read:"
)
_DELETED = "The file {name} was deleted since you read it."
_NO_BASELINE = "(read in an earlier session, whose copy is not kept: this is its current content)"
_UNREADABLE = (
    "The file {name} changed on disk since you last read it, and not through your own "
    "Write/Edit; it is no longer readable as UTF-8 text."
)
_FOOTER = "Take these changes into account; re-read a file before editing it if needed."


@record
class FileChange:
    path: Path
    kind: ChangeKind
    added: int = 0
    removed: int = 0
    snippet: str = ""


@record(frozen=False)
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


@record
class _Detected:
    path: Path
    kind: ChangeKind
    old: str | None = ""  # None: only the hash of the earlier version is known (resumed session)
    new: str = ""


# req: N3
def detect_changes(
    read_state: ReadState,
    display: Callable[[Path], str] | None = None,
    only: Iterable[Path] | None = None,
) -> ChangeReport:
    """Compare every fully read entry (or those at `only`) with the disk; update the read state
    so nothing repeats.

    Unchanged files cost one `os.stat` each; a file is opened only when its mtime moved.
    """
    entries = list(read_state) if only is None else [e for p in only if (e := read_state.get(p))]
    detected: list[_Detected] = []
    for entry in entries:
        if not entry.is_full:
            continue  # N3: a partial read gives no reliable baseline to diff against
        found = _check(read_state, entry)
        if found is not None:
            detected.append(found)
    detected.sort(key=lambda d: str(d.path))
    return _build_report(detected, display or str)


class ChangeDetector:
    """`detect_changes` that looks only at files an inotify watch saw change (a stat
    of every file read, before each request, is too slow for a long session).

    An entry is covered once its folder was watched before it was last checked; from then on a
    change shows as an event. New entries are watched first and then checked by stat, so an edit
    between the read and the watch is not lost. No watch (or an overflow): every entry, by stat.
    """

    def __init__(self) -> None:
        self._watch: DirWatch | None = None
        self._state: ReadState | None = None
        self._covered: set[Path] = set()

    def detect(
        self, read_state: ReadState, display: Callable[[Path], str] | None = None
    ) -> ChangeReport:
        if self._watch is None:
            self._watch = DirWatch()
        changed = self._watch.drain()
        paths = read_state.paths()
        if changed is None or read_state is not self._state:
            self._state, self._covered = read_state, set()
            changed = None
        new = paths - self._covered
        # Folder names as str, not Paths: a resumed session can hold 10k files.
        for folder in {_folder_of(str(p)) for p in new}:
            self._watch.watch(folder)
        if not self._watch.available:
            self._covered = set()
            return detect_changes(read_state, display)
        self._covered = paths
        if changed is None:  # every entry: iterated as stored, not looked up one by one
            return detect_changes(read_state, display)
        return detect_changes(read_state, display, new | (changed & paths))

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()


def _folder_of(resolved: str) -> str:
    """`os.path.dirname` of a resolved path, without its generic handling of any path."""
    head, sep, _ = resolved.rpartition(os.sep)
    return head or sep


# req: N2
# req: N5
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
    unchanged = (
        text == entry.content if entry.content is not None else content_hash(text) == entry.sha256
    )
    if unchanged:
        # N2: remember the new mtime so the file is not re-read on every request.
        read_state.record(replace(entry, mtime_ns=st.st_mtime_ns))
        return None
    read_state.record(entry.with_content(text, st.st_mtime_ns))
    return _Detected(entry.path, "modified", old=entry.content, new=text)


def _decode(data: bytes) -> str | None:
    if b"\x00" in data[:SNIFF_BYTES]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# req: N6
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
        if item.old is None:
            # Read in an earlier session: only its hash was kept, so show what is there now.
            body, added, removed = render_diff("", item.new, budget - len(_NO_BASELINE) - 1)
            snippet = f"{_NO_BASELINE}\n{body}"
        else:
            snippet, added, removed = render_diff(item.old, item.new, budget)
        used += len(snippet)
        report.changes.append(FileChange(item.path, "modified", added, removed, snippet))
    return report


def render_diff(old: str, new: str, budget: int = MAX_SNIPPET_CHARS) -> tuple[str, int, int]:
    """The change summary of one file: (snippet, added, removed).

    Hunks of context and added lines numbered as in the new file, removals only counted, hunks
    separated by `...`; at most `budget` characters, cut at a line boundary.
    """
    a, b = split_lines(old), split_lines(new)
    opcodes, coarse = _opcodes(a, b)
    added = sum(j2 - j1 for tag, _, _, j1, j2 in opcodes if tag != "equal")
    removed = sum(i2 - i1 for tag, i1, i2, _, _ in opcodes if tag != "equal")
    groups = _grouped(opcodes, CONTEXT_LINES)
    if not groups:
        return "(only line endings or the final newline changed)", added, removed
    total = int(coarse) + _line_count(groups)
    return truncate_lines(_render(groups, b, coarse), total, budget), added, removed


def _render(groups: list[list[_Opcode]], b: list[str], coarse: bool) -> Iterator[str]:
    # Lazy: a huge change is formatted only as far as the snippet budget reaches.
    width = len(str(max(len(b), 1)))
    if coarse:
        yield "(too many changes for a line-by-line diff; the changed region is shown whole)"
    for index, group in enumerate(groups):
        if index:
            yield "..."
        for tag, i1, i2, j1, j2 in group:
            if tag in ("delete", "replace"):
                yield f"- {_plural(i2 - i1)} removed"
            if tag != "delete":
                prefix = "  " if tag == "equal" else "+ "
                for j in range(j1, j2):
                    yield f"{prefix}{j + 1:>{width}} | {_clip(b[j])}"


def _line_count(groups: list[list[_Opcode]]) -> int:
    """How many lines `_render` yields for `groups` (without the coarse note)."""
    count = max(len(groups) - 1, 0)
    for group in groups:
        for tag, _, _, j1, j2 in group:
            count += (tag in ("delete", "replace")) + (0 if tag == "delete" else j2 - j1)
    return count


def _opcodes(a: list[str], b: list[str]) -> tuple[list[_Opcode], bool]:
    """difflib opcodes over the whole files, plus whether the changed region was diffed coarsely.

    The common head and tail are matched directly, so difflib only sees the differing middle.
    """
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    codes: list[_Opcode] = []
    if head:
        codes.append(("equal", 0, head, 0, head))
    coarse = len(a_mid) * len(b_mid) > MAX_DIFF_CELLS
    if not a_mid or not b_mid:
        if a_mid or b_mid:
            tag = "delete" if a_mid else "insert"
            codes.append((tag, head, head + len(a_mid), head, head + len(b_mid)))
    elif coarse:
        codes.append(("replace", head, head + len(a_mid), head, head + len(b_mid)))
    else:
        import difflib  # only when something is compared: not on every start

        matcher = difflib.SequenceMatcher(None, a_mid, b_mid, autojunk=False)
        codes.extend(
            (tag, i1 + head, i2 + head, j1 + head, j2 + head)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if i1 != i2 or j1 != j2
        )
    if tail:
        i, j = len(a) - tail, len(b) - tail
        codes.append(("equal", i, len(a), j, len(b)))
    return codes, coarse


def _grouped(codes: list[_Opcode], context: int) -> list[list[_Opcode]]:
    """Change hunks with up to `context` equal lines around them (difflib's grouping)."""
    if not any(tag != "equal" for tag, *_ in codes):
        return []
    codes = list(codes)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = (tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = (tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    groups: list[list[_Opcode]] = []
    group: list[_Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def truncate_lines(lines: Iterable[str], total: int, budget: int = MAX_SNIPPET_CHARS) -> str:
    """The first of `total` lines joined, at most `budget` chars, cut at a line boundary with
    a `[... N lines truncated ...]` marker. Consumes `lines` only as far as the budget reaches."""
    marker_room = len(_marker(total)) + 1
    kept: list[str] = []
    size = 0
    cut = 0  # how many kept lines still leave room for the marker
    for line in lines:
        cost = len(line) + (1 if kept else 0)
        if size + cost > budget:
            break
        kept.append(line)
        size += cost
        if size + marker_room <= budget:
            cut = len(kept)
    else:
        return "\n".join(kept)
    return "\n".join([*kept[:cut], _marker(total - cut)])


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
