"""The `wave-daemon` skill (DM4): offered to the model, its text teaches the delegation flow —
create in a worktree, async send, `wait --from-busy` and its exit codes, status, respond,
abort, destroy — with `wave` spelt as this install runs it, and that spelling works from the
model's Bash."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.daemon.conftest import Daemon
from tests.model_server import text, tool_call
from tests.wave_cli import run_wave
from wave_tui.features.commands.builtin_skills import wave_command

pytestmark = pytest.mark.req("DM4")


def _tool_results(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def test_the_model_delegates_through_the_skill_and_its_commands_work(daemon: Daemon) -> None:
    server = daemon.server
    wave = wave_command()
    server.enqueue(
        tool_call("Skill", {"skill": "wave-daemon"}),
        tool_call("Bash", {"command": f"{wave} daemon create --mode acceptEdits"}),
        text("delegated"),
    )
    done = run_wave(
        "-p", "delegate the refactor", "--permission-mode", "bypassPermissions",
        cwd=daemon.project, server=server,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    system = json.dumps(server.requests[0].body["messages"][0])
    assert "wave-daemon" in system  # listed for the model to invoke

    skill = _tool_results(server.requests[1].body)[0]
    assert "{{WAVE}}" not in skill and f"`{wave}`" in skill
    for taught in (
        "wave daemon create --worktree",
        "wave daemon send <id>",
        "wave daemon wait <id> --from-busy",
        "`0` idle",
        "`3` waiting for approval",
        "`1` error — also when another client destroyed the session",
        "wave daemon status <id> [--lines N]",
        "wave daemon respond <id> --allow --mode bypassPermissions",
        "wave daemon abort <id>",
        "wave daemon destroy <id> --remove-worktree",
    ):
        assert taught in skill, taught
    # bypassPermissions only when the user asked for it.
    assert "only when the user asked" in skill

    created = _tool_results(server.requests[2].body)[-1]
    listed = json.loads(daemon.ok("list", "--json"))
    assert [(s["id"], s["mode"]) for s in listed] == [(created.split()[0], "acceptEdits")]
