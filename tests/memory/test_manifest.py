"""The existing-memory manifest for the extraction prompt (F12, F13, X4)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.manifest import build_manifest

BASE = datetime(2026, 11, 29, 10, 0, 0, tzinfo=UTC).timestamp()


@pytest.fixture
def mem(project: Path) -> Path:
    d = WavePaths.for_workdir(project).memory_dir
    d.mkdir(parents=True)
    (d / "MEMORY.md").write_text("- [A](a.md) — a\n")
    return d


def _write(path: Path, text: str, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))


@pytest.mark.req("F12")
def test_f12_empty_dir_gives_empty_manifest(mem: Path) -> None:
    assert build_manifest(mem) == ""


@pytest.mark.req("F12")
def test_f12_missing_dir_gives_empty_manifest(tmp_path: Path) -> None:
    assert build_manifest(tmp_path / "nope") == ""


@pytest.mark.req("F12", "F13")
def test_f12_f13_exact_lines_newest_first(mem: Path) -> None:
    _write(
        mem / "user_role.md",
        "---\nname: role\ndescription: Senior Go developer\ntype: user\n---\nbody\n",
        BASE - 3600,
    )
    _write(
        mem / "feedback_tests.md",
        "---\nname: tests\ndescription: >-\n  Integration tests hit\n  a real   database\n"
        "type: feedback\n---\nbody\n",
        BASE,
    )
    _write(
        mem / "keep.md",
        "---\nname: k\ndescription: |\n  line one\n  line two\ntype: project\n---\n",
        BASE - 60,
    )
    _write(mem / "notes.md", "# just notes, no frontmatter\n", BASE - 7200)
    _write(mem / "sub" / "ref.md", "---\ntype: reference\n---\n", BASE - 10800.5)
    _write(mem / ".hidden.md", "---\ntype: user\n---\n", BASE + 10)
    _write(mem / "other.txt", "x", BASE + 10)
    (mem / ".MEMORY.md.lock").write_text("")
    assert build_manifest(mem).split("\n") == [
        "- [feedback] feedback_tests.md (2026-11-29T10:00:00.000Z): "
        "Integration tests hit a real database",
        "- [project] keep.md (2026-11-29T09:59:00.000Z): line one line two",
        "- [user] user_role.md (2026-11-29T09:00:00.000Z): Senior Go developer",
        "- [] notes.md (2026-11-29T08:00:00.000Z): ",
        "- [reference] sub/ref.md (2026-11-29T06:59:59.500Z): ",
    ]


@pytest.mark.req("F13")
def test_f13_block_scalar_continuations_are_not_keys(mem: Path) -> None:
    _write(
        mem / "a.md",
        "---\ndescription: >\n  type: not-a-key\n  really\ntype: user\n---\n",
        BASE,
    )
    assert build_manifest(mem) == "- [user] a.md (2026-11-29T10:00:00.000Z): type: not-a-key really"


@pytest.mark.req("X4")
def test_x4_invalid_frontmatter_still_listed(mem: Path) -> None:
    _write(mem / "bad.md", "---\ndescription: [unclosed\n---\n", BASE)
    assert build_manifest(mem) == "- [] bad.md (2026-11-29T10:00:00.000Z): "


@pytest.mark.req("F12")
def test_f12_capped_at_200_newest(mem: Path) -> None:
    for i in range(210):
        _write(mem / f"m{i:03}.md", f"---\ntype: project\ndescription: d{i}\n---\n", BASE + i)
    lines = build_manifest(mem).split("\n")
    assert len(lines) == 200
    assert lines[0].startswith("- [project] m209.md ")
    assert lines[-1].startswith("- [project] m010.md ")
    assert len(build_manifest(mem, limit=5).split("\n")) == 5


@pytest.mark.req("F12")
def test_f12_symlinks_are_not_followed(mem: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _write(outside / "secret.md", "---\ntype: user\ndescription: secret\n---\n", BASE)
    (mem / "link.md").symlink_to(outside / "secret.md")
    (mem / "linkdir").symlink_to(outside, target_is_directory=True)
    assert build_manifest(mem) == ""
