"""Change notifications from an inotify watch, identical to the stat walk (N1, N2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config import dir_watch as watch
from wave_tui.files.read_state import ReadState
from wave_tui.memory.changes import ChangeDetector


def _read(state: ReadState, path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    state.record_text(path, text, path.stat().st_mtime_ns)


@pytest.mark.req("N1", "N5")
def test_n1_edit_right_after_each_request_is_told_next_request(tmp_path: Path) -> None:
    state, detector = ReadState(), ChangeDetector()
    files = [tmp_path / f"f{i}.py" for i in range(20)]
    for f in files:
        _read(state, f, "a = 1\n")
    assert not detector.detect(state)
    for i, f in enumerate(files):
        f.write_text(f"a = {i + 2}\n", encoding="utf-8")  # no pause before the next request
        report = detector.detect(state)
        assert report.paths == [f]
        assert not detector.detect(state)  # told once (N5)


@pytest.mark.req("N1")
def test_n1_edit_between_the_read_and_the_first_request_is_told(tmp_path: Path) -> None:
    state, detector = ReadState(), ChangeDetector()
    assert not detector.detect(state)
    sub = tmp_path / "pkg"
    sub.mkdir()
    _read(state, sub / "m.py", "x = 1\n")
    (sub / "m.py").write_text("x = 22\n", encoding="utf-8")  # before its folder is watched
    assert detector.detect(state).paths == [sub / "m.py"]


@pytest.mark.req("N2")
def test_n2_touch_is_silent_and_deletion_is_told(tmp_path: Path) -> None:
    state, detector = ReadState(), ChangeDetector()
    f = tmp_path / "a.py"
    _read(state, f, "a\n")
    assert not detector.detect(state)
    f.touch()
    assert not detector.detect(state)
    f.unlink()
    report = detector.detect(state)
    assert [c.kind for c in report.changes] == ["deleted"]


@pytest.mark.req("N1")
def test_n1_without_inotify_the_stat_walk_tells_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "_libc", lambda: None)
    state, detector = ReadState(), ChangeDetector()
    f = tmp_path / "a.py"
    _read(state, f, "a\n")
    assert not detector.detect(state)
    f.write_text("b\n", encoding="utf-8")
    assert detector.detect(state).paths == [f]


@pytest.mark.req("N1")
def test_n1_a_moved_folder_is_looked_at_again(tmp_path: Path) -> None:
    state, detector = ReadState(), ChangeDetector()
    sub = tmp_path / "d"
    sub.mkdir()
    _read(state, sub / "a.py", "a\n")
    assert not detector.detect(state)
    sub.rename(tmp_path / "gone")
    sub.mkdir()
    (sub / "a.py").write_text("new\n", encoding="utf-8")
    assert detector.detect(state).paths == [sub / "a.py"]
    (sub / "a.py").write_text("newer\n", encoding="utf-8")  # the new folder is watched
    assert detector.detect(state).paths == [sub / "a.py"]


@pytest.mark.req("HR13")
@pytest.mark.parametrize("count", [3_000, 20_000])
def test_hr13_edit_amid_a_burst_of_new_files_is_told_next_request(
    tmp_path: Path, count: int
) -> None:
    """3,000 files: more events than one drain reads, the edit past the part read; 20,000: the
    kernel's own queue overflows. Either way the edit is told at the next request, once."""
    state, detector = ReadState(), ChangeDetector()
    tracked = tmp_path / "main.py"
    _read(state, tracked, "a = 1\n")
    assert not detector.detect(state)
    for i in range(count):
        if i == count // 2:
            tracked.write_text("a = 2\n", encoding="utf-8")
        (tmp_path / f"gen{i:06d}.txt").write_bytes(b"")
    assert detector.detect(state).paths == [tracked]
    assert not detector.detect(state)
    tracked.write_text("a = 3\n", encoding="utf-8")
    assert detector.detect(state).paths == [tracked]
