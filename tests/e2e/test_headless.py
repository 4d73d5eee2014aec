"""`wave -p` end to end against the scripted model server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, error, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import dynamic_block, static_block, texts

SIX_TOOLS = ["Read", "Write", "Edit", "Glob", "Grep", "Bash"]
# Issue 18's tools follow the built-in six in every session; then the Skill tool (the built-in
# skills the model may call), the worktree tools and Workflow. `-p` offers no cron tools: its run
# ends with its turn.
WORK_TOOLS = [
    "TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "BashOutput", "TaskOutput", "TaskStop",
    "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "WebFetch", "Agent", "Skill",
    "EnterWorktree", "ExitWorktree", "Workflow",
]  # fmt: skip


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests pin the core loop: no extraction fork adds requests after the turn."""
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def transcripts(home: Path) -> list[Path]:
    return sorted((home / ".wave" / "projects").glob("*/*.jsonl"))


@pytest.mark.req("AC1", "PV6")
def test_reads_a_file_and_answers(model_server: ModelServer, project: Path) -> None:
    """AC1: reads a file and answers."""
    (project / "notes.txt").write_text("the secret is 4711\n")
    model_server.enqueue(tool_call("Read", {"file_path": "notes.txt"}), text("The secret is 4711."))
    proc = run_wave("-p", "read notes.txt and tell me the secret", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The secret is 4711.\n"
    first, second = model_server.requests
    system = first.body["messages"][0]
    assert system["role"] == "system"
    # PV6: without prompt caching the system prompt is one plain string
    assert isinstance(system["content"], str) and system["content"].startswith("You")
    assert first.body["stream"] is True
    assert [t["function"]["name"] for t in first.body["tools"]] == SIX_TOOLS + WORK_TOOLS
    tool_msg = second.body["messages"][-1]
    assert tool_msg["role"] == "tool" and "the secret is 4711" in tool_msg["content"]


@pytest.mark.req("AC3")
def test_endpoint_failing_after_retries_exits_nonzero_with_one_line(
    model_server: ModelServer, project: Path
) -> None:
    """AC3: endpoint failing after retries exits nonzero with one line."""
    model_server.enqueue(*[error(500, "upstream exploded")] * 10)
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "HTTP 500" in lines[0] and "upstream exploded" in lines[0]
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert 2 <= len(model_server.requests) <= 5  # bounded retries


@pytest.mark.req("PM4")
def test_write_is_refused_in_default_mode_and_the_model_is_told(
    model_server: ModelServer, project: Path
) -> None:
    """PM4: write is refused in default mode and the model is told."""
    model_server.enqueue(
        tool_call("Write", {"file_path": "out.txt", "content": "x"}), text("I could not write.")
    )
    proc = run_wave("-p", "write out.txt", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert not (project / "out.txt").exists()
    refusal = model_server.requests[1].body["messages"][-1]
    assert refusal["role"] == "tool"
    assert "Permission denied" in refusal["content"] and "headless" in refusal["content"]


@pytest.mark.req("PM1")
def test_accept_edits_mode_lets_write_through(model_server: ModelServer, project: Path) -> None:
    """PM1: accept edits mode lets write through."""
    model_server.enqueue(
        tool_call("Write", {"file_path": "out.txt", "content": "hello\n"}), text("done")
    )
    proc = run_wave(
        "-p", "write", "--permission-mode", "acceptEdits", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert (project / "out.txt").read_text() == "hello\n"


@pytest.mark.req("PM2")
def test_allow_rule_from_project_settings(model_server: ModelServer, project: Path) -> None:
    """PM2: allow rule from project settings."""
    (project / ".wave").mkdir()
    (project / ".wave" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(touch *)"]}})
    )
    model_server.enqueue(tool_call("Bash", {"command": "touch made-by-bash"}), text("ok"))
    proc = run_wave("-p", "touch it", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (project / "made-by-bash").exists()


@pytest.mark.req("PM1")
def test_plan_mode_refuses_changes(model_server: ModelServer, project: Path) -> None:
    """PM1: plan mode refuses changes."""
    model_server.enqueue(tool_call("Bash", {"command": "touch nope"}), text("ok"))
    proc = run_wave("-p", "x", "--permission-mode", "plan", cwd=project, server=model_server)
    assert proc.returncode == 0
    assert not (project / "nope").exists()
    assert "plan mode" in model_server.requests[1].body["messages"][-1]["content"]


@pytest.mark.req("AC5")
def test_no_model_configured_says_how_to_configure(project: Path) -> None:
    """AC5: no model configured says how to configure."""
    # WAVE_LOCAL=0: without it, an installed `local` extra would start the offline model instead.
    proc = run_wave("-p", "hi", cwd=project, env={"WAVE_LOCAL": "0"})
    assert proc.returncode == 2, proc.stderr  # AC5: usage / configuration
    assert "WAVE_BASE_URL" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


@pytest.mark.req("AC5")
def test_missing_workdir_is_a_clear_error(model_server: ModelServer, project: Path) -> None:
    """AC5: missing workdir is a clear error."""
    proc = run_wave(
        "-p", "hi", "--workdir", str(project / "nope"), cwd=project, server=model_server
    )
    assert proc.returncode == 2, proc.stderr  # AC5: usage / configuration
    assert "work dir does not exist" in proc.stderr
    assert model_server.requests == []


def test_workdir_flag_sets_the_project_root(model_server: ModelServer, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "x.txt").write_text("found me\n")
    model_server.enqueue(tool_call("Read", {"file_path": "x.txt"}), text("ok"))
    proc = run_wave("-p", "read", "--workdir", str(other), cwd=tmp_path, server=model_server)
    assert proc.returncode == 0
    assert "found me" in model_server.requests[1].body["messages"][-1]["content"]


def test_model_flag_overrides_env(model_server: ModelServer, project: Path) -> None:
    proc = run_wave("-p", "hi", "--model", "smart", cwd=project, server=model_server)
    assert proc.returncode == 0
    assert model_server.requests[0].body["model"] == "smart"


@pytest.mark.req("AC4", "CV4")
def test_mid_stream_disconnect_exits_nonzero_and_persists_no_partial_reply(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """AC4: mid stream disconnect exits nonzero and persists no partial reply."""
    model_server.enqueue(text("this reply will break off halfway", disconnect_after=3))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode != 0
    assert "broke off" in proc.stderr
    (path,) = transcripts(isolated_home)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [m["role"] for m in lines] == ["user", "user"]
    # CV4: the prompt nothing answered is marked failed (the second line), never replayed
    assert lines[1]["meta"]["failedPrompt"] == [lines[0]["id"]]


@pytest.mark.req("AC6")
def test_transcript_is_jsonl_and_continue_restores_it(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """AC6: transcript is jsonl and continue restores it."""
    model_server.enqueue(text("first answer"))
    assert run_wave("-p", "first question", cwd=project, server=model_server).returncode == 0
    (path,) = transcripts(isolated_home)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(m["role"], m["content"]) for m in lines] == [
        ("user", "first question"),
        ("assistant", "first answer"),
    ]
    model_server.enqueue(text("second answer"))
    proc = run_wave("-p", "second question", "--continue", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    contents = [m.get("content") for m in model_server.requests[1].body["messages"][1:]]
    assert contents == ["first question", "first answer", "second question"]
    assert transcripts(isolated_home) == [path]  # same session file, appended


@pytest.mark.req("AC6")
def test_resume_by_id_and_corrupt_line_is_skipped_with_warning(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """AC6: resume by id and corrupt line is skipped with warning."""
    model_server.enqueue(text("kept answer"))
    run_wave("-p", "kept question", cwd=project, server=model_server)
    (path,) = transcripts(isolated_home)
    with path.open("a") as fh:
        fh.write('{"role": "user", "content": "trunc\n')
    proc = run_wave("-p", "next", "--resume", path.stem, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "corrupt line 3" in proc.stderr
    contents = [m.get("content") for m in model_server.requests[1].body["messages"][1:]]
    assert contents == ["kept question", "kept answer", "next"]


def test_resume_unknown_session_is_a_clear_error(model_server: ModelServer, project: Path) -> None:
    proc = run_wave("-p", "x", "--resume", "does-not-exist", cwd=project, server=model_server)
    assert proc.returncode != 0 and "no session" in proc.stderr


@pytest.mark.req("AC2")
def test_prompt_caching_marks_static_block_and_last_message(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """AC2: prompt caching marks static block and last message."""
    (isolated_home / ".wave").mkdir()
    (isolated_home / ".wave" / "settings.json").write_text(
        json.dumps({"models": {"test-model": {"capabilities": {"promptCaching": True}}}})
    )
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    messages = model_server.requests[0].body["messages"]
    assert messages[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in messages[0]["content"][-1]
    assert messages[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_without_prompt_caching_no_marks(model_server: ModelServer, project: Path) -> None:
    assert run_wave("-p", "hi", cwd=project, server=model_server).returncode == 0
    assert "cache_control" not in json.dumps(model_server.requests[0].body)


def test_custom_headers_env(model_server: ModelServer, project: Path) -> None:
    proc = run_wave(
        "-p",
        "hi",
        cwd=project,
        server=model_server,
        env={"WAVE_CUSTOM_HEADERS": json.dumps({"X-Org": "acme"})},
    )
    assert proc.returncode == 0
    assert model_server.requests[0].headers["x-org"] == "acme"


def test_static_system_block_is_byte_stable_across_sessions_and_projects(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    run_wave("-p", "a", cwd=project, server=model_server)
    run_wave("-p", "b", cwd=other, server=model_server)
    static = [static_block(r.body) for r in model_server.requests]
    assert static[0] == static[1]
    dynamic = [dynamic_block(r.body) for r in model_server.requests]
    assert str(project) in dynamic[0] and str(other) in dynamic[1]


def test_resuming_a_session_older_than_the_cleanup_period_keeps_it(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """Review: start-up cleanup must never delete the transcript being resumed."""
    import os
    import time

    model_server.enqueue(text("the secret is 42"))
    run_wave("-p", "remember: my secret is 42", cwd=project, server=model_server)
    (path,) = transcripts(isolated_home)
    old = time.time() - 40 * 86_400
    os.utime(path, (old, old))
    model_server.enqueue(text("42"))
    proc = run_wave("-p", "what is my secret?", "--continue", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    contents = [json.loads(x)["content"] for x in path.read_text().splitlines()]
    assert contents[:2] == ["remember: my secret is 42", "the secret is 42"]


@pytest.mark.req("N1")
def test_a_file_changed_between_continued_runs_is_notified(
    model_server: ModelServer, project: Path
) -> None:
    """N1 across processes: run 1 reads a.txt; it changes; run 2 (--continue) is told."""
    import os

    f = project / "a.txt"
    f.write_text("one\ntwo\n")
    model_server.enqueue(tool_call("Read", {"file_path": "a.txt"}), text("read it"))
    assert run_wave("-p", "read a.txt", cwd=project, server=model_server).returncode == 0
    f.write_text("one\ntwo\nthree\n")
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert (
        run_wave("-p", "and now?", "--continue", cwd=project, server=model_server).returncode == 0
    )
    notices = [
        t
        for t in texts(model_server.requests[-1].body["messages"], "user")
        if "changed on disk" in t
    ]
    assert len(notices) == 1 and "a.txt" in notices[0] and "3 | three" in notices[0]
