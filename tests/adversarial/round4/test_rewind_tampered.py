"""Attacks on `wave sessions rewind` through its checkpoint index on disk (`~/.wave/…`), a file
anyone with the user's rights can edit: a record naming a file outside the project (absolute, or
through `..`), a blob "hash" that names another file (`../../dev/zero`), a path that carries
terminal escapes. The rewind never writes outside the project, never reads a file the index
chose, and says what it left in one line each."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths

pytestmark = pytest.mark.req("HR8")


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def agent_turn(project: Path, server: ModelServer) -> tuple[str, str]:
    """One turn that rewrites a.txt: (the session id, the turn's message id)."""
    (project / "a.txt").write_text("one\n")
    server.enqueue(
        tool_call("Read", {"file_path": "a.txt"}),
        tool_call("Write", {"file_path": "a.txt", "content": "two\n"}),
        text("done"),
    )
    proc = run_wave(
        "-p", "go", "--permission-mode", "acceptEdits", "--output-format", "json",
        cwd=project, server=server,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    session: str = json.loads(proc.stdout)["session_id"]
    index = WavePaths.for_workdir(project).checkpoint_dir(session) / "index.jsonl"
    first = json.loads(index.read_text().splitlines()[0])
    return session, first["turn"]


def plant(project: Path, session: str, **record: object) -> None:
    """Append a forged line to the session's checkpoint index."""
    index = WavePaths.for_workdir(project).checkpoint_dir(session) / "index.jsonl"
    with index.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"kind": "before", "at": 1.0, **record}) + "\n")


def rewind(project: Path, session: str) -> tuple[int, str, str]:
    done = run_wave("sessions", "rewind", session, "--to", "1", "--code", "--force", cwd=project)
    return done.returncode, done.stdout, done.stderr


def test_a_forced_rewind_never_writes_a_planted_path_outside_the_project(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    session, turn = agent_turn(project, model_server)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("victim\n")
    created = outside / "planted.txt"
    dotted = outside / "x.txt"
    dotted.write_text("keep me\n")
    # A real blob of the store: the content the attacker wants written.
    store = WavePaths.for_workdir(project).checkpoint_dir(session)
    blob = json.loads((store / "index.jsonl").read_text().splitlines()[0])["blob"]
    plant(project, session, path=str(victim), blob=blob, turn=turn)
    plant(project, session, path=str(project / ".." / "outside" / "x.txt"), blob=None, turn=turn)
    plant(project, session, path=str(created), blob=blob, turn=turn)

    code, out, err = rewind(project, session)

    assert victim.read_text() == "victim\n"
    assert not created.exists()
    assert dotted.read_text() == "keep me\n"
    assert (project / "a.txt").read_text() == "one\n"
    assert "restored a.txt" in out
    assert code == 1
    said = [line for line in err.splitlines() if "outside the project" in line]
    assert len(said) == 3, err
    assert f"left {victim}: outside the project, a rewind never writes there" in said


def test_a_blob_hash_naming_another_file_is_not_read_and_the_file_is_reported_lost(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    session, turn = agent_turn(project, model_server)
    (project / "b.txt").write_text("mine\n")
    # A FIFO nobody writes to: a rewind that opens what the index names never returns.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    planted = "../" * 40 + str(fifo).lstrip("/")
    plant(project, session, path=str(project / "b.txt"), blob=planted, turn=turn)
    plant(project, session, path=str(project / "c.txt"), blob="0" * 63 + "/", turn=turn)
    (project / "c.txt").write_text("c\n")

    code, out, err = rewind(project, session)

    assert (project / "b.txt").read_text() == "mine\n"
    assert (project / "c.txt").read_text() == "c\n"
    assert code == 1
    assert "cannot restore b.txt: not checkpointed" in err
    assert "cannot restore c.txt: not checkpointed" in err
    assert "restored a.txt" in out


def test_a_planted_path_with_terminal_escapes_reaches_the_terminal_neutralised(
    model_server: ModelServer, project: Path
) -> None:
    session, turn = agent_turn(project, model_server)
    name = "evil\x1b]0;pwned\x07\x1b[2J.txt"
    plant(project, session, path=str(project / name), blob=None, turn=turn)  # it was created
    (project / name).write_text("x\n")

    code, out, err = rewind(project, session)

    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "removed evil␛]0;pwned␇␛[2J.txt" in out
    assert code == 0
