"""Memory inputs invalidated by inotify, with the stat walk as fallback (R2).

The race that matters: a file edited right before a request (no pause, no event loop turn)
must be in that request. inotify queues the event inside the writing syscall, so draining at
request time cannot miss it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wave_tui.config import dir_watch as watch
from wave_tui.config.dir_watch import DirWatch
from wave_tui.config.paths import WavePaths
from wave_tui.memory.injection import MemoryInjector


def _injector(project: Path) -> MemoryInjector:
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.md").write_text("Use tabs.\n")
    (project / "AGENTS.md").write_text("Project notes.\n")
    injector = MemoryInjector(WavePaths.for_workdir(project))
    for _ in range(3):  # first build, the verifying build, then served from the watch
        injector.reminder_text()
    return injector


def _steady(injector: MemoryInjector) -> str:
    text = injector.reminder_text()
    assert text is not None
    return text


@pytest.mark.req("R2")
def test_r2_rule_edited_right_before_the_request_is_in_it(project: Path) -> None:
    injector = _injector(project)
    rule = project / ".wave" / "rules" / "style.md"
    for i in range(50):  # edit, then build at once: every edit must show
        rule.write_text(f"Use tabs, version {i}.\n")
        assert f"version {i}." in _steady(injector)


@pytest.mark.req("R2")
def test_r2_rule_in_a_new_subfolder_and_a_deleted_rule_show_next_request(project: Path) -> None:
    injector = _injector(project)
    deep = project / ".wave" / "rules" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "deep.md").write_text("Deep rule.\n")
    assert "Deep rule." in _steady(injector)
    (deep / "deep.md").write_text("Deep rule, edited.\n")  # the new folder is watched now
    assert "Deep rule, edited." in _steady(injector)
    (project / ".wave" / "rules" / "style.md").unlink()
    assert "Use tabs." not in _steady(injector)


@pytest.mark.req("R2")
def test_r2_symlinked_rule_and_folder_targets_are_watched(project: Path, tmp_path: Path) -> None:
    """The walk names the folders it read, link targets included: an edit there shows."""
    shared = tmp_path / "shared"
    (shared / "sub").mkdir(parents=True)
    (shared / "lone.md").write_text("Lone v1.\n")
    (shared / "sub" / "deep.md").write_text("Deep v1.\n")
    injector = _injector(project)
    rules = project / ".wave" / "rules"
    os.symlink(shared / "lone.md", rules / "lone.md")
    os.symlink(shared / "sub", rules / "linked")
    assert "Lone v1." in _steady(injector) and "Deep v1." in _steady(injector)
    (shared / "lone.md").write_text("Lone v2.\n")
    assert "Lone v2." in _steady(injector)
    (shared / "sub" / "deep.md").write_text("Deep v2.\n")
    assert "Deep v2." in _steady(injector)
    (shared / "sub" / "new").mkdir()
    (shared / "sub" / "new" / "fresh.md").write_text("Fresh.\n")
    assert "Fresh." in _steady(injector)
    (shared / "sub" / "new" / "fresh.md").write_text("Fresh v2.\n")  # its folder is watched now
    assert "Fresh v2." in _steady(injector)


@pytest.mark.req("I1")
def test_i1_agents_md_and_import_edits_show_next_request(project: Path) -> None:
    docs = project / "docs"
    docs.mkdir()
    (docs / "api.md").write_text("API v1.\n")
    injector = _injector(project)
    (project / "AGENTS.md").write_text("Project notes.\n@docs/api.md\n")
    assert "API v1." in _steady(injector)
    _steady(injector)
    (docs / "api.md").write_text("API v2.\n")
    assert "API v2." in _steady(injector)


def test_rules_folder_created_mid_session_is_seen(project: Path) -> None:
    injector = MemoryInjector(WavePaths.for_workdir(project))
    for _ in range(3):
        assert injector.reminder_text() is None
    rules = project / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "new.md").write_text("Brand new rule.\n")
    assert "Brand new rule." in _steady(injector)


def test_without_inotify_every_request_walks_the_disk(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "_libc", lambda: None)
    injector = _injector(project)
    rule = project / ".wave" / "rules" / "style.md"
    rule.write_text("Same size 1\n")
    assert "Same size 1" in _steady(injector)
    rule.write_text("Same size 2\n")
    os.utime(rule, ns=(1, 1))  # an mtime that moved backwards still differs
    assert "Same size 2" in _steady(injector)


def test_dir_watch_names_what_changed(tmp_path: Path) -> None:
    w = DirWatch()
    assert w.available  # the test machine is Linux
    assert w.watch(tmp_path) and not w.watch(tmp_path)
    assert w.drain() == set()
    (tmp_path / "a.md").write_text("x")
    os.utime(tmp_path / "a.md", ns=(5, 5))
    assert w.drain() == {tmp_path / "a.md"}
    assert w.drain() == set()
    w.close()
    assert w.drain() is None


def _burst(folder: Path, start: int, stop: int) -> None:
    for i in range(start, stop):
        (folder / f"gen{i:06d}.txt").write_bytes(b"")


@pytest.mark.req("HR13")
@pytest.mark.parametrize("count", [3_000, 20_000])
def test_hr13_rule_and_agents_md_edits_amid_a_burst_are_in_the_next_request(
    project: Path, count: int
) -> None:
    """3,000 files: more events than one drain reads, fewer than the kernel's queue holds (the
    edits are past the part read); 20,000: the kernel's own queue overflows."""
    injector = _injector(project)
    half = count // 2
    _burst(project, 0, half)  # the project root is watched (the AGENTS.md chain)
    (project / ".wave" / "rules" / "style.md").write_text("Use spaces, amid the burst.\n")
    _burst(project, half, count)
    (project / "AGENTS.md").write_text("Project notes, last of the burst.\n")
    text = _steady(injector)
    assert "Use spaces, amid the burst." in text
    assert "Project notes, last of the burst." in text
    (project / ".wave" / "rules" / "style.md").write_text("Use tabs again.\n")
    assert "Use tabs again." in _steady(injector)  # the watch serves the requests after it


@pytest.mark.req("HR13")
def test_a_rule_file_another_process_keeps_growing_is_read_in_bounded_reads(
    tmp_path: Path,
) -> None:
    """A writer that outpaces the reader: the read takes what is there plus a bounded tail."""
    from wave_tui.memory import rule_parse

    path = tmp_path / "growing.md"
    path.write_text("---\npaths: ['*.py']\n---\nbody\n")
    reads = 0
    real_read = os.read

    def endless(fd: int, n: int) -> bytes:
        nonlocal reads
        reads += 1
        return real_read(fd, n) or b"x" * n  # as if appended faster than read, forever

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rule_parse.os, "read", endless)
        data = rule_parse._read_all(path, path.stat().st_size)
    assert data.startswith(b"---\npaths:")
    assert reads <= 1 + rule_parse._GROWTH_READS
