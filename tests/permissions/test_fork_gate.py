"""The extraction fork's tool gate, attacked (F5, F6, F7)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.fork_gate import memory_fork_gate
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.fork_gate import ForkToolGate


@pytest.fixture
def mem(project: Path) -> AutoMemoryDir:
    d = AutoMemoryDir(WavePaths.for_workdir(project))
    d.ensure()
    return d


@pytest.fixture
def gate(mem: AutoMemoryDir) -> ForkToolGate:
    return memory_fork_gate(mem)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "outside"
    d.mkdir()
    (d / "victim.md").write_text("v")
    return d


@pytest.mark.req("F5")
def test_f5_read_tools_allowed(gate: ForkToolGate, project: Path) -> None:
    for name, args in [
        ("Read", {"file_path": "/etc/hostname"}),
        ("Grep", {"pattern": "x", "path": str(project)}),
        ("Glob", {"pattern": "**/*.py"}),
    ]:
        assert gate.check(AnalysedUse.of(name, args, project)).allowed


@pytest.mark.req("F5")
@pytest.mark.parametrize(
    "command",
    ["ls -la", "cat MEMORY.md", "grep -rn foo .", "head -n 5 a.md", "git log --oneline -5"],
)
def test_f5_read_only_bash_allowed(gate: ForkToolGate, project: Path, command: str) -> None:
    decision = gate.check(AnalysedUse.of("Bash", {"command": command}, project))
    assert decision.allowed, decision.reason


@pytest.mark.req("F6")
def test_f6_write_and_edit_inside_allowed(
    gate: ForkToolGate, mem: AutoMemoryDir, project: Path
) -> None:
    for args in [
        {"file_path": str(mem.path / "user_role.md"), "content": "x"},
        {"file_path": str(mem.path / "MEMORY.md"), "content": "x"},
        {"file_path": str(mem.path / "sub" / "deep.md"), "content": "x"},
        {"file_path": str(mem.path / "a" / ".." / "b.md"), "content": "x"},
    ]:
        assert gate.check(AnalysedUse.of("Write", args, project)).allowed, args
    edit = {"file_path": str(mem.path / "MEMORY.md"), "old_string": "a", "new_string": "b"}
    assert gate.check(AnalysedUse.of("Edit", edit, project)).allowed
    # a relative path is taken against the work dir
    assert gate.check(
        AnalysedUse.of("Write", {"file_path": str(mem.path / "r.md")}, mem.path)
    ).allowed
    assert gate.check(AnalysedUse.of("Write", {"file_path": "r.md"}, mem.path)).allowed


def _escapes(mem: AutoMemoryDir, project: Path, outside: Path) -> list[tuple[str, dict[str, Any]]]:
    m = mem.path
    (m / "link_to_file.md").symlink_to(outside / "victim.md")
    (m / "link_to_dir").symlink_to(outside, target_is_directory=True)
    (m / "dangling.md").symlink_to(outside / "new.md")
    (m.parent / "memory-evil").mkdir()
    linked_parent = project / "linked_parent"
    linked_parent.symlink_to(outside, target_is_directory=True)
    write = "Write"
    return [
        (write, {"file_path": str(m / ".." / "escape.md")}),
        (write, {"file_path": str(m / "a" / ".." / ".." / "escape.md")}),
        (write, {"file_path": f"{m}/../../../../../../etc/passwd"}),
        ("Edit", {"file_path": str(m / ".." / "memory-evil" / "x.md")}),
        (write, {"file_path": "/etc/passwd"}),
        (write, {"file_path": str(outside / "victim.md")}),
        (write, {"file_path": str(project / "AGENTS.md")}),
        (write, {"file_path": str(m.parent / "memory-evil" / "x.md")}),
        (write, {"file_path": f"{m}-evil/x.md"}),
        (write, {"file_path": str(m / "link_to_file.md")}),
        ("Edit", {"file_path": str(m / "link_to_file.md")}),
        (write, {"file_path": str(m / "link_to_dir" / "x.md")}),
        (write, {"file_path": str(m / "link_to_dir" / "victim.md")}),
        (write, {"file_path": str(m / "dangling.md")}),
        (write, {"file_path": str(linked_parent / "x.md")}),
        (write, {"file_path": f"{m.parent}/memory\uff0fx.md"}),  # fullwidth solidus
        (write, {"file_path": f"{m.parent}/memory\u2215x.md"}),  # division slash
        (write, {"file_path": f"{m.parent}/memory\u2044x.md"}),  # fraction slash
        (write, {"file_path": f"{m}\u200b/x.md"}),  # zero-width space
        (write, {"file_path": ""}),
        (write, {"file_path": "   "}),
        (write, {"file_path": None}),
        (write, {"file_path": 42}),
        (write, {"file_path": ["a.md"]}),
        (write, {}),
        (write, {"file_path": str(m / "x.md") + "\x00"}),
        (write, {"file_path": f"{m}\x00/../../escape.md"}),
        (write, {"file_path": "~/.bashrc"}),
        (write, {"file_path": "~/.wave/settings.json"}),
        (write, {"file_path": "escape.md"}),  # relative to the work dir (the project)
        ("Bash", {"command": f"rm {m}/MEMORY.md"}),
        ("Bash", {"command": "rm -rf /"}),
        ("Bash", {"command": f"echo hi > {m}/x.md"}),
        ("Bash", {"command": "cat a.md >> b.md"}),
        ("Bash", {"command": "echo $(rm -rf ~)"}),
        ("Bash", {"command": "echo `rm -rf ~`"}),
        ("Bash", {"command": "sed -i s/a/b/ a.md"}),
        ("Bash", {"command": "find . -delete"}),
        ("Bash", {"command": "find . -exec rm {} ;"}),
        ("Bash", {"command": "echo x | tee a.md"}),
        ("Bash", {"command": "git push --force"}),
        ("Bash", {"command": "ls; rm a.md"}),
        ("Bash", {"command": "ls && rm a.md"}),
        ("Bash", {"command": "mkdir x"}),
        ("Bash", {"command": ""}),
        ("Bash", {"command": None}),
        ("Bash", {}),
        ("mcp__x__y", {"file_path": str(m / "a.md")}),
        ("Agent", {"prompt": "write a memory"}),
        ("Task", {"prompt": "x"}),
        ("write", {"file_path": str(m / "a.md")}),
        ("edit", {"file_path": str(m / "a.md")}),
        ("WRITE", {"file_path": str(m / "a.md")}),
        ("MultiEdit", {"file_path": str(m / "a.md")}),
        ("NotebookEdit", {"notebook_path": str(m / "a.ipynb")}),
        ("WebFetch", {"url": "http://example.com"}),
        ("", {}),
    ]


@pytest.mark.req("F6", "F7")
def test_f6_f7_adversarial_table(
    gate: ForkToolGate, mem: AutoMemoryDir, project: Path, outside: Path
) -> None:
    cases = _escapes(mem, project, outside)
    assert len(cases) >= 30
    succeeded = [(n, a) for n, a in cases if gate.check(AnalysedUse.of(n, a, project)).allowed]
    assert succeeded == []


@pytest.mark.req("F6")
def test_f6_refusal_names_what_is_allowed(
    gate: ForkToolGate, mem: AutoMemoryDir, project: Path
) -> None:
    for name, args in [
        ("Write", {"file_path": "/etc/passwd"}),
        ("Bash", {"command": "rm -rf x"}),
        ("Agent", {}),
    ]:
        decision = gate.check(AnalysedUse.of(name, args, project))
        assert not decision.allowed
        for word in ("Read", "Grep", "Glob", "read-only Bash", "Write/Edit", str(mem.path)):
            assert word in decision.reason


@pytest.mark.req("F6")
def test_f6_non_dict_args_refused(gate: ForkToolGate, project: Path) -> None:
    assert not gate.check(AnalysedUse.of("Write", None, project)).allowed  # type: ignore[arg-type]


@pytest.mark.req("AG6", "F7", "MC6", "TK6")
@pytest.mark.parametrize(
    "tool",
    ["mcp__fs__read", "mcp__git__status", "Agent", "Task", "TaskCreate", "TaskGet", "TaskList",
     "TaskUpdate", "TaskOutput", "TaskStop", "EnterPlanMode", "ExitPlanMode", "WebFetch",
     "AskUserQuestion", "Skill", "BashOutput"],
)  # fmt: skip
def test_f7_fork_refuses_every_restricted_tool(
    gate: ForkToolGate, mem: AutoMemoryDir, project: Path, tool: str
) -> None:
    """F7, MC6, TK6, AG6: MCP, task, subagent, plan, web and question tools are refused."""
    decision = gate.check(
        AnalysedUse.of(tool, {"file_path": str(mem.path / "a.md"), "url": "https://x.y"}, project)
    )
    assert not decision.allowed
    assert "not available to the memory extraction" in decision.reason
