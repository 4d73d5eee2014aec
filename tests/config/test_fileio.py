"""Atomic replace and locks (standards: writes that replace a file are atomic; X2)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wave_tui.config.fileio import STALE_TEMP_AGE_S, atomic_write_text, locked_update

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("X2")


def test_a_symlink_stays_a_link_and_its_target_gets_the_text(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("- existing rule\n")
    link = tmp_path / "AGENTS.md"
    os.symlink(target.name, link)
    locked_update(link, lambda cur: (cur or "") + "- use uv\n")
    assert link.is_symlink()
    assert target.read_text() == "- existing rule\n- use uv\n"


def test_new_files_get_the_ordinary_mode_and_existing_ones_keep_theirs(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        fresh = tmp_path / "new.md"
        atomic_write_text(fresh, "x")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
        private = tmp_path / "private.md"
        private.write_text("x")
        private.chmod(0o600)
        atomic_write_text(private, "y")
        assert stat.S_IMODE(private.stat().st_mode) == 0o600
    finally:
        os.umask(umask)


def test_no_temp_file_is_left_behind(tmp_path: Path) -> None:
    atomic_write_text(tmp_path / "a.txt", "1")
    atomic_write_text(tmp_path / "a.txt", "2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


_BLOCKED_WRITER = """
import os, sys, time
from pathlib import Path
from wave_tui.config import fileio

def stop_before_replace(fd):
    print("writing", flush=True)
    time.sleep(3600)

os.fsync = stop_before_replace
fileio.atomic_write_text(Path(sys.argv[1]), "half of a big answer")
"""


def _start_blocked_writer(target: Path) -> subprocess.Popen[str]:
    """A writer process stopped after its temp file is written, before the rename."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _BLOCKED_WRITER, str(target)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "writing\n"
    return proc


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.req("X12")
def test_x12_temp_left_by_a_kill_9_is_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "AGENTS.md"
    target.write_text("- old\n")
    proc = _start_blocked_writer(target)
    assert len(_temps(tmp_path)) == 1
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(_temps(tmp_path)) == 1  # the crash left it behind

    locked_update(target, lambda cur: (cur or "") + "- new\n")

    assert _temps(tmp_path) == []
    assert target.read_text() == "- old\n- new\n"


@pytest.mark.req("X12")
def test_x12_a_live_writers_temp_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "AGENTS.md"
    proc = _start_blocked_writer(target)
    try:
        atomic_write_text(target, "mine\n")
        assert len(_temps(tmp_path)) == 1
    finally:
        proc.kill()
        proc.wait()
    assert target.read_text() == "mine\n"


@pytest.mark.req("X12")
def test_x12_old_format_temps_go_once_they_are_stale(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    old = tmp_path / ".notes.md.k2j4h5g6.tmp"
    young = tmp_path / ".notes.md.a1b2c3d4.tmp"
    other = tmp_path / ".other.md.k2j4h5g6.tmp"
    for path in (old, young, other):
        path.write_text("x")
    past = time.time() - STALE_TEMP_AGE_S - 10
    os.utime(old, (past, past))
    os.utime(other, (past, past))

    atomic_write_text(target, "y")

    assert _temps(tmp_path) == sorted([young.name, other.name])
