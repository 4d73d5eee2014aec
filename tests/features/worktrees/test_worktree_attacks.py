"""Attacks on wave's own git through the worktree entry points, as a sandboxed command or a
committed file would plant them: hooks, config programs and filter drivers never run (HR2);
a committed `.wave`/`.wave/worktrees` link never moves a checkout or the session out (HR4)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.git_repos import committed_repo, git
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave

BYPASS = ("--permission-mode", "bypassPermissions")


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {"a.txt": "hello\n", ".gitattributes": "*.txt filter=evil diff=evil\n"}
    return committed_repo(tmp_path / "repo", files)


def planted(repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A program that records each run in a marker file, and that marker."""
    marker = tmp_path / "ran"
    program = tmp_path / "evil.sh"
    program.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat\n')
    program.chmod(0o755)
    return program, marker


def plant_hooks(repo: Path, program: Path) -> None:
    for name in ("post-checkout", "reference-transaction", "post-index-change"):
        (repo / ".git" / "hooks" / name).symlink_to(program)


def plant_hooks_path(repo: Path, program: Path) -> None:
    folder = repo.parent / "planted-hooks"
    folder.mkdir()
    (folder / "post-checkout").symlink_to(program)
    git(repo, "config", "core.hooksPath", str(folder))


def plant_fsmonitor(repo: Path, program: Path) -> None:
    git(repo, "config", "core.fsmonitor", str(program))


def plant_filter(repo: Path, program: Path) -> None:
    git(repo, "config", "filter.evil.smudge", str(program))
    git(repo, "config", "filter.evil.clean", str(program))
    git(repo, "config", "filter.evil.required", "true")


ATTACKS: dict[str, Callable[[Path, Path], None]] = {
    "hooks": plant_hooks,
    "hooksPath": plant_hooks_path,
    "fsmonitor": plant_fsmonitor,
    "filter": plant_filter,
}


@pytest.mark.req("HR2")
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_enter_and_exit_worktree_run_no_program_the_repository_names(
    model_server: ModelServer, repo: Path, tmp_path: Path, attack: str
) -> None:
    program, marker = planted(repo, tmp_path)
    ATTACKS[attack](repo, program)
    model_server.enqueue(
        tool_call("EnterWorktree", {"name": "feat"}),
        tool_call("ExitWorktree", {"action": "remove"}),
        text("done"),
    )
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    results = [
        str(m["content"]) for m in model_server.requests[-1].body["messages"] if m["role"] == "tool"
    ]
    assert results[0].startswith("Created worktree feat"), results
    assert results[1].startswith("Removed worktree feat"), results
    assert not marker.exists(), marker.read_text()


@pytest.mark.req("HR2")
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_worktree_option_runs_no_program_the_repository_names(
    model_server: ModelServer, repo: Path, tmp_path: Path, attack: str
) -> None:
    program, marker = planted(repo, tmp_path)
    ATTACKS[attack](repo, program)
    model_server.enqueue(text("ok"))
    proc = run_wave("-p", "hi", "--worktree", "cli", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".wave" / "worktrees" / "cli" / "a.txt").read_text() == "hello\n"
    assert not marker.exists(), marker.read_text()


@pytest.mark.req("HR2")
def test_a_planted_upload_pack_never_runs_on_a_fresh_fetch(
    model_server: ModelServer, repo: Path, tmp_path: Path
) -> None:
    """`worktree.baseRef: fresh` fetches `origin`; a path remote runs its upload-pack locally."""
    program, marker = planted(repo, tmp_path)
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "config", "remote.origin.uploadpack", str(program))
    model_server.enqueue(tool_call("EnterWorktree", {"name": "up"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".wave" / "worktrees" / "up").is_dir(), model_server.requests[-1].body[
        "messages"
    ][-1]
    assert not marker.exists(), marker.read_text()


@pytest.mark.req("HR2")
def test_a_config_that_includes_other_files_is_refused_in_one_line(
    model_server: ModelServer, repo: Path, tmp_path: Path
) -> None:
    program, marker = planted(repo, tmp_path)
    included = tmp_path / "included.cfg"
    included.write_text(f'[filter "evil"]\n\tsmudge = {program}\n\trequired = true\n')
    git(repo, "config", "include.path", str(included))
    model_server.enqueue(tool_call("EnterWorktree", {"name": "inc"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (result,) = [
        str(m["content"]) for m in model_server.requests[-1].body["messages"] if m["role"] == "tool"
    ]
    assert "includes other files; wave runs no git there" in result and "\n" not in result
    assert not marker.exists()
    assert not (repo / ".wave" / "worktrees" / "inc").exists()


def _link(repo: Path, relative: str, target: Path) -> None:
    link = repo / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


@pytest.mark.req("HR4")
@pytest.mark.parametrize("linked", [".wave", ".wave/worktrees"])
def test_enter_worktree_refuses_a_committed_link_and_checks_nothing_out_there(
    model_server: ModelServer, repo: Path, isolated_home: Path, linked: str
) -> None:
    autostart = isolated_home / ".config" / "autostart"
    autostart.mkdir(parents=True)
    if linked == ".wave":
        (autostart / "worktrees").mkdir()
    _link(repo, linked, autostart)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "a link")
    model_server.enqueue(tool_call("EnterWorktree", {"name": "x"}), text("ok"))
    proc = run_wave("-p", "go", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (result,) = [
        str(m["content"]) for m in model_server.requests[-1].body["messages"] if m["role"] == "tool"
    ]
    assert "symbolic link" in result and "\n" not in result.strip(), result
    assert sorted(p.name for p in autostart.rglob("*")) == (
        ["worktrees"] if linked == ".wave" else []
    )
    assert "wave/x" not in git(repo, "branch", "--list")


@pytest.mark.req("HR4")
def test_the_worktree_option_refuses_a_linked_worktree_folder(
    model_server: ModelServer, repo: Path, isolated_home: Path
) -> None:
    (isolated_home / ".bashrc").write_text("# mine\n")
    _link(repo, ".wave/worktrees/home", isolated_home)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "a link home")
    model_server.enqueue(
        tool_call("Edit", {"file_path": ".bashrc", "old_string": "# mine", "new_string": "evil"}),
        text("ok"),
    )
    proc = run_wave(
        "-p", "go", "--worktree", "home", "--permission-mode", "acceptEdits",
        cwd=repo, server=model_server,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "symbolic link" in proc.stderr and proc.stderr.strip().count("\n") == 0, proc.stderr
    assert (isolated_home / ".bashrc").read_text() == "# mine\n"
    assert not any(r.path.endswith("/chat/completions") for r in model_server.requests)


@pytest.mark.req("HR4")
def test_a_worktree_folder_outside_the_project_is_refused(
    model_server: ModelServer, repo: Path, tmp_path: Path
) -> None:
    """A real `.wave/worktrees` whose parent is a link out is refused just the same."""
    outside = tmp_path / "outside"
    (outside / "worktrees" / "o").mkdir(parents=True)
    _link(repo, ".wave", outside)
    proc = run_wave("-p", "go", "--worktree", "o", *BYPASS, cwd=repo, server=model_server)
    assert proc.returncode != 0 and "symbolic link" in proc.stderr, proc.stderr
    assert os.listdir(outside / "worktrees" / "o") == []
