"""`wave sessions …` and `--fork-session` on real `wave -p` runs: files checkpointed before each
Write/Edit, put back by `rewind --code`, the conversation cut by `--conversation` (checked in the
next request the scripted model gets), forks that leave the original byte-identical, delete."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import WAVE, run_wave
from wave_tui.config.paths import WavePaths


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def turn(project: Path, server: ModelServer, prompt: str, *extra: str) -> str:
    """One `wave -p` turn that may write files; returns the session id."""
    proc = run_wave(
        "-p",
        prompt,
        "--permission-mode",
        "acceptEdits",
        "--output-format",
        "json",
        *extra,
        cwd=project,
        server=server,
    )
    assert proc.returncode == 0, proc.stderr
    session: str = json.loads(proc.stdout)["session_id"]
    return session


def sessions(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_wave("sessions", *args, cwd=project)


def two_turns(project: Path, server: ModelServer) -> str:
    """Turn 1 rewrites a.txt and creates b.txt; turn 2 edits a.txt again."""
    (project / "a.txt").write_text("one\n")
    server.enqueue(
        tool_call("Read", {"file_path": "a.txt"}),
        tool_call("Write", {"file_path": "a.txt", "content": "two\n"}),
        tool_call("Write", {"file_path": "b.txt", "content": "new\n"}),
        text("wrote them"),
        tool_call("Read", {"file_path": "a.txt"}),
        tool_call("Edit", {"file_path": "a.txt", "old_string": "two", "new_string": "three"}),
        text("edited"),
    )
    sid = turn(project, server, "first prompt")
    assert turn(project, server, "second prompt", "-c") == sid
    assert (project / "a.txt").read_text() == "three\n"
    return sid


def user_texts(body: dict[str, Any]) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in body["messages"]
        if m["role"] == "user"
    ]


@pytest.mark.req("RW1")
@pytest.mark.req("RW3")
@pytest.mark.req("RW4")
def test_rewind_code_puts_back_each_file_as_it_was_before_that_message(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    transcript = WavePaths.for_workdir(project).transcript(sid)
    before = transcript.read_bytes()
    show = sessions(project, "show", sid, "--json")
    assert show.returncode == 0, show.stderr
    shown = json.loads(show.stdout)
    assert [(m["n"], m["text"]) for m in shown["messages"]] == [
        (1, "first prompt"),
        (2, "second prompt"),
    ]
    back = sessions(project, "rewind", sid, "--to", "2", "--code")
    assert back.returncode == 0, back.stderr
    assert (project / "a.txt").read_text() == "two\n"
    assert (project / "b.txt").read_text() == "new\n"
    assert "not tracked" in back.stdout  # Bash changes are not rewound, and it says so
    back = sessions(project, "rewind", sid, "--to", "1", "--code")
    assert back.returncode == 0, back.stderr
    assert (project / "a.txt").read_text() == "one\n"
    assert not (project / "b.txt").exists()  # created by the agent: removed
    assert transcript.read_bytes() == before  # --code leaves the conversation alone
    again = sessions(project, "rewind", sid, "--to", "1", "--code")
    assert again.returncode == 0 and (project / "a.txt").read_text() == "one\n"


@pytest.mark.req("RW2")
@pytest.mark.req("FH9")
def test_rewind_conversation_continues_from_just_before_that_message(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    back = sessions(project, "rewind", sid, "--to", "2", "--conversation")
    assert back.returncode == 0, back.stderr
    assert "second prompt" in back.stdout
    assert (project / "a.txt").read_text() == "three\n"  # the files stay
    kept = back.stdout.split("kept as session ", 1)[1].split()[0]
    listed = json.loads(sessions(project, "list", "--json").stdout)
    assert [r["parent"] for r in listed if r["id"] == kept] == [sid]
    shown = json.loads(sessions(project, "show", kept, "--json").stdout)["messages"]
    assert [m["text"] for m in shown] == ["first prompt", "second prompt"]  # undoable
    model_server.enqueue(text("ok"))
    turn(project, model_server, "instead", "--resume", sid)
    texts = user_texts(model_server.requests[-1].body)
    assert "second prompt" not in texts and "edited" not in json.dumps(
        model_server.requests[-1].body["messages"]
    )
    assert "instead" in texts[-1] and "first prompt" in texts


@pytest.mark.req("RW3")
def test_a_file_changed_elsewhere_is_named_and_left_unless_forced(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    (project / "a.txt").write_text("mine\n")
    back = sessions(project, "rewind", sid, "--to", "1", "--code")
    assert back.returncode == 1
    assert "a.txt" in back.stderr and "changed since the agent wrote it" in back.stderr
    assert (project / "a.txt").read_text() == "mine\n"
    assert not (project / "b.txt").exists()  # the others are put back all the same
    forced = sessions(project, "rewind", sid, "--to", "1", "--code", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (project / "a.txt").read_text() == "one\n"


@pytest.mark.req("RW4")
@pytest.mark.req("RW8")
def test_unknown_ids_and_numbers_out_of_range_exit_2_with_one_line(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    for args in (
        ("show", "nope"),
        ("delete", "nope", "--yes"),
        ("fork", "nope"),
        ("rewind", "nope", "--to", "1"),
        ("rewind", sid, "--to", "3"),
        ("rewind", sid, "--to", "0"),
        ("rewind", sid, "--to", "x"),
    ):
        proc = sessions(project, *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert proc.stdout == ""


@pytest.mark.req("FH10")
def test_a_short_id_names_its_session_and_an_ambiguous_one_is_one_line(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    forked = sessions(project, "fork", sid[:8]).stdout.strip()
    assert forked and forked != sid

    shown = sessions(project, "show", sid[:8], "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["id"] == sid
    too_short = sessions(project, "show", sid[:3])
    assert too_short.returncode == 2 and len(too_short.stderr.splitlines()) == 1


@pytest.mark.req("RW4")
@pytest.mark.req("RW5")
def test_fork_and_fork_session_leave_the_original_byte_identical(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    transcript = WavePaths.for_workdir(project).transcript(sid)
    before = transcript.read_bytes()
    fork = sessions(project, "fork", sid)
    assert fork.returncode == 0, fork.stderr
    forked = fork.stdout.strip()
    assert forked != sid and transcript.with_name(f"{forked}.jsonl").read_bytes() == before
    model_server.enqueue(text("in the fork"))
    new = turn(project, model_server, "third prompt", "--resume", sid, "--fork-session")
    assert new not in (sid, forked)
    assert transcript.read_bytes() == before
    assert "first prompt" in user_texts(model_server.requests[-1].body)
    listing = sessions(project, "list", "--json")
    rows = {r["id"]: r for r in json.loads(listing.stdout)}
    assert rows[new]["parent"] == sid and rows[forked]["parent"] == sid
    assert rows[sid]["first_prompt"] == "first prompt" and rows[sid]["model"]
    assert set(rows[sid]) == {
        "id", "name", "created", "last_active", "messages", "model", "first_prompt", "parent"
    }  # fmt: skip
    # The fork's checkpoints are its own: rewinding it puts the files back too.
    back = sessions(project, "rewind", forked, "--to", "1", "--code")
    assert back.returncode == 0, back.stderr
    assert (project / "a.txt").read_text() == "one\n"


@pytest.mark.req("RW5")
def test_fork_session_needs_a_session_to_continue(project: Path) -> None:
    proc = run_wave("-p", "x", "--fork-session", cwd=project)
    assert proc.returncode == 2 and "--continue or --resume" in proc.stderr


@pytest.mark.req("RW8")
def test_delete_removes_transcript_subagents_and_checkpoints(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    paths = WavePaths.for_workdir(project)
    subagent = paths.subagent_transcript(sid, "agent-1")
    subagent.parent.mkdir(parents=True)
    subagent.write_text("{}\n")
    assert paths.checkpoint_dir(sid).is_dir()
    proc = sessions(project, "delete", sid, "--yes")
    assert proc.returncode == 0, proc.stderr
    assert not paths.transcript(sid).exists()
    assert not subagent.exists() and not (paths.project_dir / sid).exists()
    assert not paths.checkpoint_dir(sid).exists()
    assert sid not in sessions(project, "list").stdout


@pytest.mark.req("RW8")
def test_delete_refuses_the_session_of_a_running_wave(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    made = len(model_server.requests)
    hold = threading.Event()
    model_server.enqueue(text("slow", hold=hold))
    env = {**model_server.env(), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    running = subprocess.Popen(
        [*WAVE, "-p", "wait", "-c"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        marker = WavePaths.for_workdir(project).running_dir / f"{running.pid}.json"
        while not (marker.exists() and model_server.requests[made:]):
            assert running.poll() is None
            threading.Event().wait(0.05)
        proc = sessions(project, "delete", sid, "--yes")
        assert proc.returncode == 1 and "in use" in proc.stderr
        assert WavePaths.for_workdir(project).transcript(sid).exists()
    finally:
        hold.set()
        running.wait(timeout=60)
    assert not marker.exists()  # the wave took its marker away when it ended
    assert sessions(project, "delete", sid, "--yes").returncode == 0


@pytest.mark.req("RW1")
def test_a_wave_killed_after_the_write_still_rewinds_to_the_bytes_before_it(
    model_server: ModelServer, project: Path
) -> None:
    """kill -9 in the middle of a Write's pipeline (a PostToolUse hook kills the wave before
    the checkpoint hook notes the result): the prior bytes were kept before the write."""
    (project / "a.txt").write_text("precious\n")
    hook = project / "kill.sh"
    hook.write_text(f"#!/bin/sh\nkill -9 $(cat {project}/wave.pid)\n")
    hook.chmod(0o755)
    settings = project / ".wave" / "settings.json"
    settings.parent.mkdir()
    entry = {"matcher": "Write", "hooks": [{"type": "command", "command": str(hook)}]}
    settings.write_text(json.dumps({"hooks": {"PostToolUse": [entry]}}))
    model_server.enqueue(
        tool_call("Read", {"file_path": "a.txt"}),
        tool_call("Write", {"file_path": "a.txt", "content": "clobbered\n"}),
    )
    env = {**model_server.env(), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    script = (
        "import os, sys; open('wave.pid', 'w').write(str(os.getpid()));"
        "from wave_tui.cli.main import main; sys.exit(main())"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, "-p", "go", "--permission-mode", "acceptEdits"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert (project / "a.txt").read_text() == "clobbered\n"
    folder = WavePaths.for_workdir(project).project_dir
    (transcript,) = list(folder.glob("*.jsonl"))
    back = sessions(project, "rewind", transcript.stem, "--to", "1", "--code")
    assert back.returncode == 0, back.stderr
    assert (project / "a.txt").read_text() == "precious\n"
    assert os.environ.get("WAVE_DISABLE_AUTO_MEMORY") == "1"


@pytest.mark.req("RW1")
def test_a_write_whose_checkpoint_cannot_be_kept_does_not_touch_the_file(
    model_server: ModelServer, project: Path
) -> None:
    """The checkpoint comes first: where it cannot be written, the Write fails, the file stays."""
    (project / "a.txt").write_text("precious\n")
    checkpoints = WavePaths.for_workdir(project).checkpoints_root
    checkpoints.parent.mkdir(parents=True)
    checkpoints.write_text("not a folder")
    model_server.enqueue(
        tool_call("Read", {"file_path": "a.txt"}),
        tool_call("Write", {"file_path": "a.txt", "content": "clobbered\n"}),
        text("tried"),
    )
    turn(project, model_server, "go")
    assert (project / "a.txt").read_text() == "precious\n"
    (result,) = [m for m in model_server.requests[-1].body["messages"] if m["role"] == "tool"][-1:]
    assert "Write failed" in str(result["content"])


@pytest.mark.req("RW3")
def test_after_a_compaction_code_rewinds_across_it_and_the_conversation_refuses_first(
    model_server: ModelServer, project: Path
) -> None:
    sid = two_turns(project, model_server)
    model_server.enqueue(text("The summary."))
    compacted = run_wave("-p", "/compact", "-c", cwd=project, server=model_server)
    assert compacted.returncode == 0, compacted.stderr
    child = json.loads(sessions(project, "list", "--json").stdout)[0]
    assert child["parent"] == sid
    refused = sessions(project, "rewind", child["id"], "--to", "1")
    assert refused.returncode == 2 and "compaction" in refused.stderr
    assert (project / "a.txt").read_text() == "three\n"  # nothing touched before refusing
    back = sessions(project, "rewind", child["id"], "--to", "1", "--code")
    assert back.returncode == 0, back.stderr
    assert (project / "a.txt").read_text() == "one\n" and not (project / "b.txt").exists()


@pytest.mark.req("FH10")
def test_the_rewind_list_shows_an_attached_file_as_one_line(
    model_server: ModelServer, project: Path
) -> None:
    (project / "notes.txt").write_text("the secret is 42\n")
    model_server.enqueue(text("read it"))
    sid = turn(project, model_server, "look at @notes.txt")
    shown = sessions(project, "show", sid, "--json")
    assert shown.returncode == 0, shown.stderr
    (message,) = json.loads(shown.stdout)["messages"]
    assert "<attached-file" not in message["text"]
    assert message["text"].startswith("look at @notes.txt")
    assert "(attached: notes.txt)" in message["text"]
