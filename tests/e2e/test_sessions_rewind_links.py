"""Attacks on a code rewind through links: a checkpointed file swapped for a symlink to a file
outside the project, a folder on a checkpointed path swapped for a link to a folder outside.
`wave sessions rewind --force` replaces the link itself and never writes (or deletes) through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def agent_turn(project: Path, server: ModelServer) -> str:
    """One turn: rewrites a.txt, creates sub/new.txt, rewrites sub/c.txt."""
    (project / "a.txt").write_text("one\n")
    (project / "sub").mkdir()
    (project / "sub" / "c.txt").write_text("c one\n")
    server.enqueue(
        tool_call("Read", {"file_path": "a.txt"}),
        tool_call("Write", {"file_path": "a.txt", "content": "two\n"}),
        tool_call("Write", {"file_path": "sub/new.txt", "content": "new\n"}),
        tool_call("Read", {"file_path": "sub/c.txt"}),
        tool_call("Write", {"file_path": "sub/c.txt", "content": "c two\n"}),
        text("done"),
    )
    proc = run_wave(
        "-p", "go", "--permission-mode", "acceptEdits", "--output-format", "json",
        cwd=project, server=server,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (project / "sub" / "new.txt").read_text() == "new\n"
    session: str = json.loads(proc.stdout)["session_id"]
    return session


@pytest.mark.req("HR8")
def test_a_forced_rewind_replaces_links_and_never_writes_through_them(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    sid = agent_turn(project, model_server)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("victim\n")
    (outside / "c.txt").write_text("outside c\n")
    (outside / "new.txt").write_text("outside new\n")
    (project / "a.txt").unlink()
    (project / "a.txt").symlink_to(victim)
    (project / "sub").rename(project / "sub.moved")
    (project / "sub").symlink_to(outside, target_is_directory=True)

    forced = run_wave("sessions", "rewind", sid, "--to", "1", "--code", "--force", cwd=project)

    assert victim.read_text() == "victim\n"
    assert not (project / "a.txt").is_symlink()
    assert (project / "a.txt").read_text() == "one\n"
    # Through the linked folder neither the restore nor the removal reaches outside.
    assert (outside / "c.txt").read_text() == "outside c\n"
    assert (outside / "new.txt").read_text() == "outside new\n"
    assert forced.returncode == 1
    assert "restored a.txt" in forced.stdout
    assert "sub/c.txt" in forced.stderr and "sub/new.txt" in forced.stderr
