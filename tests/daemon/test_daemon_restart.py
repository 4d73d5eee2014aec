"""A daemon restart restores its sessions (DM3): killed with -9, the next `wave daemon` command
starts a daemon that brings back every session — its conversation from disk and its permission
mode (004: approvals flooding in after a restart because the mode fell back) — and finishes a
destroy the dead daemon had started."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.daemon.conftest import Daemon, daemon_paths, daemon_pid, kill_daemon
from tests.model_server import text, tool_call

pytestmark = pytest.mark.req("DM3")


def test_kill_9_and_restart_restores_sessions_with_their_modes(daemon: Daemon) -> None:
    target = daemon.project / "after-restart.txt"
    daemon.server.enqueue(
        tool_call("Write", {"file_path": str(daemon.project / "a.txt"), "content": "a"}),
        text("a written"),
        text("plain answer"),
    )
    bypassed = daemon.create()
    plain = daemon.create("--mode", "acceptEdits")
    daemon.ok("send", bypassed, "write a.txt")
    assert daemon.run("wait", bypassed, "--from-busy").returncode == 3
    # One step: the mode for the rest of the session, and the waiting call allowed.
    daemon.ok("respond", bypassed, "--allow", "--mode", "bypassPermissions")
    assert daemon.run("wait", bypassed).returncode == 0
    daemon.ok("send", plain, "say something")
    assert daemon.run("wait", plain, "--from-busy").returncode == 0

    first = kill_daemon()
    assert first is not None

    listed = {s["id"]: s for s in json.loads(daemon.ok("list", "--json"))}
    assert daemon_pid() not in (None, first)
    assert {k: (v["state"], v["mode"]) for k, v in listed.items()} == {
        bypassed: ("idle", "bypassPermissions"),
        plain: ("idle", "acceptEdits"),
    }
    assert daemon.ok("status", bypassed, "--lines", "9").splitlines()[1:] == [
        "[user] write a.txt",
        "[assistant] a written",
    ]
    assert daemon.ok("status", plain, "--lines", "9").splitlines()[1:] == [
        "[user] say something",
        "[assistant] plain answer",
    ]

    # The restored mode is in force: no approval is asked for this Bash command.
    daemon.server.enqueue(
        tool_call("Bash", {"command": f"echo restored > {target}"}), text("ran it")
    )
    daemon.ok("send", bypassed, "run the command")
    waited = daemon.run("wait", bypassed, "--from-busy")
    assert waited.returncode == 0, waited.stdout
    assert target.read_text() == "restored\n"
    # The conversation goes on from where it was: the model sees the turns from before.
    sent = [m.get("content") for m in daemon.server.last_request.body["messages"]]
    assert "write a.txt" in sent and "run the command" in sent


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_a_destroy_cut_halfway_is_finished_by_the_next_daemon(daemon: Daemon) -> None:
    _git(daemon.project, "init", "-q", "-b", "main")
    _git(
        daemon.project,
        "-c",
        "user.email=t@e",
        "-c",
        "user.name=T",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "init",
    )
    session = daemon.create("--worktree", "side")
    worktree = daemon.project / ".wave" / "worktrees" / "side"
    assert daemon.status(session)["worktree"] == "side"
    assert worktree.is_dir()
    kill_daemon()
    # What `destroy --remove-worktree` saves before its first step, as a daemon killed right
    # after it left it.
    registry = daemon_paths().daemon_registry
    data = json.loads(registry.read_text())
    data["sessions"][0].update(destroying=True, remove_worktree=True)
    registry.write_text(json.dumps(data))

    assert json.loads(daemon.ok("list", "--json")) == []
    assert not worktree.exists()
    assert json.loads(registry.read_text()) == {"sessions": []}
