"""The auto-memory directory: creation, containment by real path, locked writes (A1, A4, S5, X2)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from wave_tui.config.fileio import lock_path_for
from wave_tui.config.paths import WavePaths
from wave_tui.memory.auto_memory import AutoMemoryDir


@pytest.fixture
def mem(project: Path) -> AutoMemoryDir:
    d = AutoMemoryDir(WavePaths.for_workdir(project))
    d.ensure()
    return d


@pytest.mark.req("A1", "S5")
def test_a1_path_is_the_projects_memory_dir(project: Path, isolated_home: Path) -> None:
    d = AutoMemoryDir(WavePaths.for_workdir(project))
    assert d.path == WavePaths.for_workdir(project).memory_dir
    assert d.path.is_relative_to(isolated_home.resolve() / ".wave" / "projects")
    assert not d.path.exists()  # S5: nothing is created until ensure()


@pytest.mark.req("A1")
def test_a1_ensure_creates_dir_and_empty_index_idempotently(project: Path) -> None:
    d = AutoMemoryDir(WavePaths.for_workdir(project))
    d.ensure()
    assert d.index_path.read_text() == ""
    d.index_path.write_text("- [A](a.md) — a\n")
    d.ensure()
    assert d.index_path.read_text() == "- [A](a.md) — a\n"


@pytest.mark.req("A4")
def test_a4_contains_inside(mem: AutoMemoryDir) -> None:
    assert mem.contains(mem.path / "MEMORY.md")
    assert mem.contains(mem.path / "new_topic.md")  # not yet existing
    assert mem.contains(str(mem.path / "sub" / "deeper" / "x.md"))
    assert mem.contains(mem.path / "sub" / ".." / "x.md")


@pytest.mark.req("A4")
def test_a4_contains_rejects_escapes(mem: AutoMemoryDir, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("s")
    (mem.path / "link_dir").symlink_to(outside, target_is_directory=True)
    (mem.path / "link_file.md").symlink_to(outside / "secret.md")
    (mem.path / "dangling.md").symlink_to(outside / "not_there.md")
    evil = mem.path.parent / "memory-evil"
    evil.mkdir()
    cases: list[object] = [
        mem.path,  # the directory itself is not a file inside it
        mem.path / ".." / "x.md",
        mem.path / "new" / ".." / ".." / "x.md",
        evil / "x.md",
        f"{mem.path}-evil/x.md",
        mem.path / "link_dir" / "x.md",
        mem.path / "link_file.md",
        mem.path / "dangling.md",
        "/etc/passwd",
        str(mem.path / "x.md") + "\x00",
        "",
        None,
        42,
        b"/tmp/x",
        f"{mem.path.parent}/memory\u2215x.md",
        f"{mem.path.parent}/memory\uff0fx.md",
    ]
    for case in cases:
        assert mem.contains(case) is False, case


@pytest.mark.req("A4")
def test_a4_symlinked_memory_dir_itself(project: Path, tmp_path: Path) -> None:
    real = tmp_path / "real_memory"
    real.mkdir()
    paths = WavePaths.for_workdir(project)
    paths.memory_dir.parent.mkdir(parents=True)
    paths.memory_dir.symlink_to(real, target_is_directory=True)
    d = AutoMemoryDir(paths)
    assert d.contains(paths.memory_dir / "a.md")
    assert d.contains(real / "a.md")
    assert not d.contains(tmp_path / "a.md")


@pytest.mark.req("A4")
def test_a4_is_index(mem: AutoMemoryDir) -> None:
    assert mem.is_index(mem.path / "MEMORY.md")
    assert mem.is_index(str(mem.path / "sub" / ".." / "MEMORY.md"))
    assert not mem.is_index(mem.path / "sub" / "MEMORY.md")
    assert not mem.is_index("\x00")


@pytest.mark.req("X2")
def test_x2_locked_write_and_refusal_outside(mem: AutoMemoryDir, tmp_path: Path) -> None:
    target = mem.path / "topic.md"
    mem.locked_write(target, "hello\n")
    assert target.read_text() == "hello\n"
    with pytest.raises(ValueError):
        mem.locked_write(tmp_path / "x.md", "nope")
    assert not (tmp_path / "x.md").exists()


@pytest.mark.req("X2")
def test_x2_concurrent_updates_lose_nothing(mem: AutoMemoryDir) -> None:
    target = mem.index_path

    def add(i: int) -> None:
        mem.locked_update(target, lambda cur: (cur or "") + f"- [E{i}](e{i}.md)\n")

    threads = [threading.Thread(target=add, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(target.read_text().splitlines()) == sorted(
        f"- [E{i}](e{i}.md)" for i in range(20)
    )


@pytest.mark.req("X2")
def test_x2_lock_context(mem: AutoMemoryDir) -> None:
    with mem.lock(mem.path / "a.md"):
        assert os.path.exists(lock_path_for(mem.path / "a.md"))
        assert not any(p.name.endswith(".lock") for p in mem.path.iterdir())  # nothing in memory/
    with pytest.raises(ValueError), mem.lock(Path("/tmp/elsewhere.md")):
        pass
