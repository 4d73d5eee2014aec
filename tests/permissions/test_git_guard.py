"""X5: auto-approved git never runs a program named by repository configuration.

Each case builds a real repository whose config runs a program that writes a marker file, asks
the gate (fork) or the policy (main agent), runs what was allowed with the Bash tool exactly as
the agent would (the decision's run profile), and checks the marker was never written.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.files.read_state import ReadState
from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.fork_gate import memory_fork_gate
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.policy import PermissionPolicy, RunProfile
from wave_tui.tools.base import ToolContext
from wave_tui.tools.bash import BashTool

COMMANDS = ["status", "ls-files", "diff", "remote show origin"]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def hostile_repo(repo: Path, marker: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q")
    (repo / "f.txt").write_text("a\n")
    _git(repo, "add", "f.txt")
    _git(repo, "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "init")
    (repo / "f.txt").write_text("a\nb\n")  # a dirty worktree: status/diff look at it
    _git(repo, "config", "core.fsmonitor", f"touch {marker}; false")
    _git(repo, "config", "core.sshCommand", f"touch {marker}; false")
    _git(repo, "remote", "add", "origin", "ssh://example.invalid/x.git")
    return repo


def run_allowed(command: str, workdir: Path, profile: RunProfile) -> None:
    ctx = ToolContext(
        workdir=workdir,
        read_state=ReadState(),
        env=profile.env,
        output_limit_bytes=profile.output_limit_bytes,
    )
    asyncio.run(BashTool().run({"command": command}, ctx))


def test_the_reproduction_really_runs_the_program_without_wave(tmp_path: Path) -> None:
    """The hostile config is live: plain git runs the marker program (so the tests can fail)."""
    marker = tmp_path / "marker"
    repo = hostile_repo(tmp_path / "r", marker)
    subprocess.run(["git", "-C", str(repo), "status"], capture_output=True)
    assert marker.exists()


@pytest.mark.req("X5")
@pytest.mark.parametrize("sub", COMMANDS)
def test_x5_fork_git_in_a_repository_built_in_the_memory_folder(
    project: Path, tmp_path: Path, sub: str
) -> None:
    mem = AutoMemoryDir(WavePaths.for_workdir(project))
    mem.ensure()
    marker = tmp_path / "marker"
    repo = hostile_repo(mem.path / "r", marker)
    command = f"git -C {repo} {sub}"
    decision = memory_fork_gate(mem).check(AnalysedUse.of("Bash", {"command": command}, project))
    assert not decision.allowed
    assert not marker.exists()


@pytest.mark.req("X5")
@pytest.mark.parametrize("sub", COMMANDS)
def test_x5_fork_git_in_the_projects_own_hostile_repository_runs_hardened(
    project: Path, tmp_path: Path, sub: str
) -> None:
    mem = AutoMemoryDir(WavePaths.for_workdir(project))
    mem.ensure()
    marker = tmp_path / "marker"
    hostile_repo(project, marker)
    command = f"git {sub}"
    decision = memory_fork_gate(mem).check(AnalysedUse.of("Bash", {"command": command}, project))
    assert decision.allowed, decision.reason
    run_allowed(command, project, decision.profile)
    assert not marker.exists()


@pytest.mark.req("X5")
@pytest.mark.parametrize("sub", COMMANDS)
def test_x5_main_agent_git_into_a_nested_repository_asks(
    project: Path, tmp_path: Path, sub: str
) -> None:
    marker = tmp_path / "marker"
    hostile_repo(project / "vendor" / "lib", marker)
    policy = PermissionPolicy(project)
    decision = policy.decide("Bash", {"command": f"git -C vendor/lib {sub}"})
    assert decision.behavior == "ask"
    outside = hostile_repo(tmp_path / "elsewhere", marker)
    assert policy.decide("Bash", {"command": f"git -C {outside} {sub}"}).behavior == "ask"
    assert not marker.exists()


@pytest.mark.req("X5")
@pytest.mark.parametrize("sub", COMMANDS)
def test_x5_main_agent_git_in_its_own_hostile_repository_runs_hardened(
    project: Path, tmp_path: Path, sub: str
) -> None:
    marker = tmp_path / "marker"
    hostile_repo(project, marker)
    decision = PermissionPolicy(project).decide("Bash", {"command": f"git {sub}"})
    assert decision.behavior == "allow"
    run_allowed(f"git {sub}", project, decision.profile)
    assert not marker.exists()


@pytest.mark.req("X5")
@pytest.mark.parametrize(
    "config",
    [
        ["diff.external", "touch {m}"],
        ["diff.x.textconv", "touch {m}"],
        ["filter.x.clean", "touch {m}"],
        ["include.path", "/tmp/other.cfg"],
    ],
)
def test_x5_drivers_and_includes_the_overrides_cannot_reach_make_git_ask(
    project: Path, tmp_path: Path, config: list[str]
) -> None:
    marker = tmp_path / "marker"
    hostile_repo(project, marker)
    _git(project, "config", config[0], config[1].format(m=marker))
    assert PermissionPolicy(project).decide("Bash", {"command": "git diff"}).behavior == "ask"


@pytest.mark.req("X5")
def test_x5_attributes_selecting_drivers_make_git_ask(project: Path, tmp_path: Path) -> None:
    hostile_repo(project, tmp_path / "marker")
    (project / ".git" / "info").mkdir(exist_ok=True)
    (project / ".git" / "info" / "attributes").write_text("* diff=x\n")
    assert PermissionPolicy(project).decide("Bash", {"command": "git log -p"}).behavior == "ask"


@pytest.mark.req("X5")
def test_x5_git_options_that_run_drivers_are_not_read_only(project: Path) -> None:
    policy = PermissionPolicy(project)
    for command in (
        "git log --show-signature",
        "git cat-file --textconv HEAD:f",
        "git show --ext-diff",
    ):
        assert policy.decide("Bash", {"command": command}).behavior == "ask", command
