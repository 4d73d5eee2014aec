"""N1–N7: change notifications for files the agent read that changed on disk since."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from wave_tui.files.read_state import ReadState
from wave_tui.memory.changes import (
    MAX_FILES_PER_TURN,
    MAX_SNIPPET_CHARS,
    MAX_TOTAL_CHARS_PER_TURN,
    ChangeReport,
    detect_changes,
    render_diff,
    truncate_lines,
)

BASE_NS = 1_700_000_000_000_000_000


def _write(path: Path, text: str, mtime_ns: int) -> None:
    path.write_text(text, encoding="utf-8", newline="")
    # Explicit ns times: two writes inside the filesystem's timestamp granularity must still differ.
    os.utime(path, ns=(mtime_ns, mtime_ns))


def _read(state: ReadState, path: Path, **kwargs: int | None) -> None:
    """What the Read tool records after reading the whole file (or a window with offset/limit)."""
    state.record_text(path, path.read_text(encoding="utf-8"), path.stat().st_mtime_ns, **kwargs)


def _numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def _text_of(report: ChangeReport) -> str:
    message = report.message()
    assert message is not None
    return message.content


def _text(state: ReadState) -> str:
    return _text_of(detect_changes(state))


@pytest.mark.req("N1")
def test_n1_external_edit_is_notified_with_added_lines_and_removed_count(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    _write(path, _numbered(20), BASE_NS)
    state = ReadState()
    _read(state, path)
    new = _numbered(20).replace("line 12\n", "twelve\nthirteen\n").replace("line 2\n", "")
    _write(path, new, BASE_NS + 1_000_000_000)

    report = detect_changes(state, display=lambda p: p.name)

    assert [c.kind for c in report.changes] == ["modified"]
    change = report.changes[0]
    assert (change.added, change.removed) == (2, 2)
    message = report.message()
    assert message is not None and message.is_meta and message.role == "user"
    assert message.meta["changedFiles"] == [str(path)]
    text = message.content
    assert text.startswith("<system-reminder>") and text.endswith("</system-reminder>")
    assert "The file a.py changed on disk since you last read it" in text
    assert "not through your own Write/Edit" in text
    assert "+ 11 | twelve" in text and "+ 12 | thirteen" in text
    assert "  10 | line 11" in text  # context, numbered as in the new file
    assert "1 line removed" in text
    assert "\n...\n" in text  # two separate hunks
    assert "re-read a file before editing it" in text
    assert report.summary_line() == "1 file changed since read: a.py"
    assert state.get(path) is not None and state.get(path).content == new


@pytest.mark.req("N2")
def test_n2_touch_without_content_change_is_silent(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    _write(path, "x = 1\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    os.utime(path, ns=(BASE_NS + 5_000_000_000, BASE_NS + 5_000_000_000))

    report = detect_changes(state)

    assert not report and report.message() is None and report.summary_line() == ""
    entry = state.get(path)
    # The new mtime is remembered so the file is not re-read on every request.
    assert entry is not None and entry.mtime_ns == BASE_NS + 5_000_000_000


@pytest.mark.req("N3")
def test_n3_partial_reads_are_skipped(tmp_path: Path) -> None:
    state = ReadState()
    for name, kwargs in (("off.py", {"offset": 2}), ("lim.py", {"limit": 3})):
        path = tmp_path / name
        _write(path, _numbered(10), BASE_NS)
        _read(state, path, **kwargs)
        _write(path, "rewritten\n", BASE_NS + 1_000_000_000)

    assert not detect_changes(state)


@pytest.mark.req("N4")
def test_n4_files_written_by_the_agent_are_not_notified(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    _write(path, "old\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    # What Write/Edit do: write the file, then record the new content and mtime.
    _write(path, "new by agent\n", BASE_NS + 1_000_000_000)
    state.record_text(path, "new by agent\n", path.stat().st_mtime_ns, written_by_agent=True)

    assert not detect_changes(state)


@pytest.mark.req("N5")
def test_n5_same_change_is_notified_once(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    _write(path, "one\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    _write(path, "one\ntwo\n", BASE_NS + 1_000_000_000)

    assert detect_changes(state).message() is not None
    assert not detect_changes(state)
    # A later, different change is told again.
    _write(path, "one\ntwo\nthree\n", BASE_NS + 2_000_000_000)
    assert "+ 3 | three" in _text(state)


@pytest.mark.req("N6")
def test_n6_many_changed_files_are_capped_with_one_overflow_line(tmp_path: Path) -> None:
    state = ReadState()
    paths = []
    for i in range(50):
        path = tmp_path / f"f{i:02}.py"
        _write(path, _numbered(400), BASE_NS)
        _read(state, path)
        paths.append(path)
    for path in paths:
        new = "".join(f"changed {i} {'x' * 40}\n" for i in range(400))
        _write(path, new, BASE_NS + 1_000_000_000)

    report = detect_changes(state, display=lambda p: p.name)

    assert len(report.changes) <= MAX_FILES_PER_TURN
    assert sum(len(c.snippet) for c in report.changes) <= MAX_TOTAL_CHARS_PER_TURN
    assert all(len(c.snippet) <= MAX_SNIPPET_CHARS for c in report.changes)
    assert len(report.changes) + len(report.overflow) == 50
    text = _text_of(report)
    overflow_lines = [line for line in text.splitlines() if "more files changed:" in line]
    assert len(overflow_lines) == 1
    assert overflow_lines[0].startswith(f"{len(report.overflow)} more files changed: ")
    assert all(p.name in overflow_lines[0] for p in report.overflow)
    assert len(text) < MAX_TOTAL_CHARS_PER_TURN + 5_000
    assert report.summary_line().startswith("50 files changed since read: ")
    # Overflow files were absorbed into the read state too: nothing repeats next turn.
    assert not detect_changes(state)


@pytest.mark.req("N6")
def test_n6_overflow_line_is_bounded(tmp_path: Path) -> None:
    state = ReadState()
    for i in range(200):
        path = tmp_path / f"g{i:03}.py"
        _write(path, "a\n", BASE_NS)
        _read(state, path)
        _write(path, "b\n", BASE_NS + 1_000_000_000)

    report = detect_changes(state, display=lambda p: p.name)

    line = next(x for x in _text_of(report).splitlines() if "more files changed:" in x)
    assert line.startswith("190 more files changed: ")
    assert line.endswith(", and 140 more")
    assert line.count(".py") == 50


@pytest.mark.req("N6")
def test_n6_huge_change_is_truncated_at_a_line_boundary(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    _write(path, "start\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    _write(path, "start\n" + "".join(f"added line {i}\n" for i in range(5_000)), BASE_NS + 10**9)

    change = detect_changes(state).changes[0]

    assert change.added == 5_000
    assert len(change.snippet) <= MAX_SNIPPET_CHARS
    last = change.snippet.splitlines()[-1]
    assert re.fullmatch(r"\[\.\.\. \d+ lines truncated \.\.\.\]", last)
    kept = change.snippet.splitlines()[:-1]
    assert all(re.fullmatch(r"(\+ |  ) *\d+ \| (start|added line \d+)", x) for x in kept)
    shown = len(kept)
    assert int(last.split()[1]) + shown == 5_001


@pytest.mark.req("N6")
def test_n6_one_huge_line_is_clipped_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / "min.js"
    _write(path, "a\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    _write(path, "b" * 100_000 + "\n", BASE_NS + 10**9)

    snippet = detect_changes(state).changes[0].snippet

    assert len(snippet) < 1_000 and "\n+ 1 | bbbb" in snippet


def test_deleted_file_is_reported_once_and_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "gone.py"
    _write(path, "x\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    path.unlink()

    report = detect_changes(state, display=lambda p: p.name)

    assert [c.kind for c in report.changes] == ["deleted"]
    assert "The file gone.py was deleted since you read it." in _text_of(report)
    assert "gone.py (deleted)" in report.summary_line()
    assert path not in state
    assert not detect_changes(state)


def test_no_longer_utf8_is_reported_once_and_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    _write(path, "text\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    path.write_bytes(b"\xff\xfe\x00binary")
    os.utime(path, ns=(BASE_NS + 10**9, BASE_NS + 10**9))

    report = detect_changes(state)

    assert [c.kind for c in report.changes] == ["unreadable"]
    assert "no longer readable as UTF-8 text" in _text_of(report)
    assert path not in state
    assert not detect_changes(state)


def test_wording_states_only_the_fact(tmp_path: Path) -> None:
    state = ReadState()
    for name in ("a.py", "b.py"):
        path = tmp_path / name
        _write(path, "one\n", BASE_NS)
        _read(state, path)
        _write(path, "two\n", BASE_NS + 10**9)
    (tmp_path / "b.py").unlink()

    text = _text(state).lower()

    for guess in ("user", "linter", "formatter", "editor", "someone"):
        assert guess not in text
    for hiding in ("do not tell", "don't tell", "do not mention", "don't mention", "hide"):
        assert hiding not in text


@pytest.mark.req("F11", "N7")
def test_n7_memory_file_rewritten_by_fork_is_notified(tmp_path: Path) -> None:
    memory = tmp_path / "memory" / "feedback_style.md"
    memory.parent.mkdir()
    _write(memory, "---\nname: style\n---\nUse tabs.\n", BASE_NS)
    main = ReadState()
    _read(main, memory)
    fork = main.clone()
    # The fork edits with its own read state; the main agent's stays at the old version (F11).
    _write(memory, "---\nname: style\n---\nUse spaces.\n", BASE_NS + 10**9)
    fork.record_text(
        memory, memory.read_text("utf-8"), memory.stat().st_mtime_ns, written_by_agent=True
    )

    assert not detect_changes(fork)
    assert "+ 4 | Use spaces." in _text(main)


@pytest.mark.req("N5")
def test_entries_known_only_by_hash_are_compared_by_hash(tmp_path: Path) -> None:
    """A read from an earlier session (resumed): no copy kept, only its hash. A touch stays
    silent; a real change is reported with the current content, numbered."""
    path = tmp_path / "a.py"
    _write(path, "x\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    entry = state.get(path)
    assert entry is not None
    state.record(replace(entry, content=None))
    _write(path, "x\n", BASE_NS + 10**9)  # touched, same content
    assert not detect_changes(state)
    _write(path, "y\nz\n", BASE_NS + 2 * 10**9)
    report = detect_changes(state)
    (change,) = report.changes
    assert "earlier session" in change.snippet and "2 | z" in change.snippet
    assert not detect_changes(state)  # N5: once


def test_crlf_file_touched_is_silent(tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    _write(path, "a\r\nb\r\n", BASE_NS)
    state = ReadState()
    state.record_text(path, path.read_bytes().decode("utf-8"), path.stat().st_mtime_ns)
    os.utime(path, ns=(BASE_NS + 10**9, BASE_NS + 10**9))

    assert not detect_changes(state)


def test_render_diff_numbers_added_lines_in_the_new_file() -> None:
    snippet, added, removed = render_diff("a\nb\nc\n", "a\nB\nc\nd\n")

    assert snippet.splitlines() == ["  1 | a", "- 1 line removed", "+ 2 | B", "  3 | c", "+ 4 | d"]
    assert (added, removed) == (2, 1)


def test_render_diff_stays_fast_on_scattered_edits_in_a_large_file() -> None:
    old = "".join(f"line {i}\n" if i % 3 else "\n" for i in range(20_000))
    new = "".join(f"line {i}\n" if i % 3 else "}\n" for i in range(20_000))

    snippet, added, removed = render_diff(old, new)

    assert snippet.startswith("(too many changes") and len(snippet) <= MAX_SNIPPET_CHARS
    assert added == removed == 19_999


def test_truncate_lines_marker_fits_in_budget() -> None:
    lines = [f"{i:04}" + "x" * 95 for i in range(1_000)]

    text = truncate_lines(iter(lines), len(lines), 1_000)

    assert len(text) <= 1_000
    kept = text.splitlines()
    assert kept[-1] == f"[... {1_000 - (len(kept) - 1)} lines truncated ...]"
    assert truncate_lines(["a", "b"], 2, 1_000) == "a\nb"


@pytest.mark.req("N1")
def test_n1_line_ending_only_change_still_says_what_changed(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    _write(path, "a\nb\n", BASE_NS)
    state = ReadState()
    _read(state, path)
    _write(path, "a\r\nb", BASE_NS + 10**9)

    assert "only line endings or the final newline changed" in _text(state)
