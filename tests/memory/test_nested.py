"""Nested memory chain between a read file and the project root (D1, D4–D7)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wave_tui.memory.nested import nested_memory_chain

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("D1")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.req("D4")
def test_d4_chain_is_far_to_near_and_excludes_root(project: Path) -> None:
    write(project / "AGENTS.md", "root\n")
    a = write(project / "pkg" / "AGENTS.md", "pkg\n")
    b = write(project / "pkg" / "sub" / "AGENTS.md", "sub\n")
    target = write(project / "pkg" / "sub" / "deep" / "file.py", "x\n")
    assert nested_memory_chain(target, project) == [a.resolve(), b.resolve()]


@pytest.mark.req("D6")
def test_d6_agents_md_beats_claude_md_and_claude_is_fallback(project: Path) -> None:
    agents = write(project / "a" / "AGENTS.md", "agents\n")
    write(project / "a" / "CLAUDE.md", "claude\n")
    claude = write(project / "a" / "b" / "CLAUDE.md", "claude only\n")
    target = write(project / "a" / "b" / "f.txt", "x\n")
    assert nested_memory_chain(target, project) == [agents.resolve(), claude.resolve()]


@pytest.mark.req("D5")
def test_d5_files_outside_project_root_trigger_nothing(project: Path, tmp_path: Path) -> None:
    write(tmp_path / "outside" / "AGENTS.md", "no\n")
    target = write(tmp_path / "outside" / "f.py", "x\n")
    assert nested_memory_chain(target, project) == []


@pytest.mark.req("D4")
def test_d4_file_in_project_root_gives_nothing(project: Path) -> None:
    write(project / "AGENTS.md", "root\n")
    assert nested_memory_chain(write(project / "f.py", "x\n"), project) == []


@pytest.mark.req("D7")
def test_d7_unreadable_level_skipped(project: Path) -> None:
    """Levels whose AGENTS.md cannot be read (a folder, a dangling link — unreadable even for
    root, unlike chmod 000) are skipped; the rest of the chain still loads."""
    (project / "a" / "AGENTS.md").mkdir(parents=True)
    (project / "a" / "b" / "c").mkdir(parents=True)
    os.symlink(project / "nowhere.md", project / "a" / "b" / "c" / "AGENTS.md")
    good = write(project / "a" / "b" / "AGENTS.md", "ok\n")
    target = write(project / "a" / "b" / "c" / "f.py", "x\n")
    assert nested_memory_chain(target, project) == [good.resolve()]


@pytest.mark.req("D7")
def test_d7_symlink_loop_in_path_terminates(project: Path) -> None:
    os.symlink(project / "loop", project / "loop")  # a self-referencing link
    assert nested_memory_chain(project / "loop" / "f.py", project) == []


@pytest.mark.req("D7")
def test_d7_an_undecodable_level_is_skipped_and_the_rest_injected(project: Path) -> None:
    """Seed: a memory file that fails to read (permissions, encoding) is skipped."""
    from wave_tui.config.paths import WavePaths
    from wave_tui.memory.injection import MemoryInjector
    from wave_tui.tools.base import ToolResult

    (project / "a" / "b").mkdir(parents=True)
    (project / "a" / "AGENTS.md").write_text("GOOD-LEVEL\n")
    (project / "a" / "b" / "AGENTS.md").write_bytes(b"\xff\xfe bad \x80 utf8\n")
    target = write(project / "a" / "b" / "f.txt", "x\n")
    warnings: list[str] = []
    injector = MemoryInjector(WavePaths.for_workdir(project), warn=warnings.append)
    messages = injector.on_tool_result(ToolResult("x", read_paths=[target]))
    assert [("GOOD-LEVEL" in m.content) for m in messages] == [True]
    assert "\ufffd" not in "".join(m.content for m in messages)
    assert len(warnings) == 1 and "skipped" in warnings[0]
    assert injector.on_tool_result(ToolResult("x", read_paths=[target])) == []
    assert len(warnings) == 1
