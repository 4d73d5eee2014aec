"""Atomic replace and locks (standards: writes that replace a file are atomic; X2)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from wave_tui.config.fileio import atomic_write_text, locked_update


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
