"""User hooks through `wave -p` with real hook scripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.hook_helpers import configure, contents, project_settings, script
from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.processes import alive as _alive
from tests.wave_cli import run_wave


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.mark.req("HK2", "HK3", "HK4")
def test_hk4_pre_tool_use_exit_2_refuses_and_the_model_gets_stderr(
    model_server: ModelServer, project: Path
) -> None:
    """HK2, HK3, HK4: the matcher selects Write; stdin has the contract's fields."""
    hook = script(
        project,
        "guard.sh",
        'cat > "$WAVE_PROJECT_DIR/stdin.json"\necho "writes are frozen today" >&2\nexit 2\n',
    )
    configure(project_settings(project), "PreToolUse", str(hook), matcher="Write|Edit")
    model_server.enqueue(
        tool_call("Write", {"file_path": "out.txt", "content": "x"}), text("Could not write.")
    )
    proc = run_wave(
        "-p", "write out.txt", "--permission-mode", "acceptEdits", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert not (project / "out.txt").exists()
    tool_msg = model_server.requests[-1].body["messages"][-1]
    assert tool_msg["role"] == "tool" and "writes are frozen today" in tool_msg["content"]
    payload = json.loads((project / "stdin.json").read_text())
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "Write"
    assert payload["tool_input"] == {"file_path": "out.txt", "content": "x"}
    assert payload["cwd"] == str(project.resolve())
    assert payload["session_id"] and payload["transcript_path"].endswith(".jsonl")


@pytest.mark.req("HK2", "HK3")
def test_hk2_a_matcher_that_does_not_match_lets_the_call_run_and_post_gets_the_response(
    model_server: ModelServer, project: Path
) -> None:
    """HK2, HK3: `Read.*` does not match Write; PostToolUse gets `tool_response`; exit 0 goes on."""
    guard = script(project, "guard.sh", "echo never >&2\nexit 2\n")
    post = script(
        project,
        "post.sh",
        'cat >> "$WAVE_PROJECT_DIR/post.jsonl"; echo >> "$WAVE_PROJECT_DIR/post.jsonl"\n',
    )
    configure(project_settings(project), "PreToolUse", str(guard), matcher="Read.*")
    configure(project_settings(project), "PostToolUse", str(post), matcher="")
    model_server.enqueue(tool_call("Write", {"file_path": "out.txt", "content": "x"}), text("ok"))
    proc = run_wave(
        "-p", "write", "--permission-mode", "acceptEdits", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert (project / "out.txt").read_text() == "x"
    (line,) = [json.loads(x) for x in (project / "post.jsonl").read_text().splitlines() if x]
    assert line["hook_event_name"] == "PostToolUse" and line["tool_name"] == "Write"
    assert line["tool_response"]["is_error"] is False
    assert "out.txt" in line["tool_response"]["content"]


@pytest.mark.req("HK5")
def test_hk5_timeout_kills_the_whole_process_group(
    model_server: ModelServer, project: Path
) -> None:
    """HK5: the hook's grandchild (a background sleep) is gone after the timeout; a warning."""
    hook = script(
        project, "slow.sh", 'sleep 300 &\necho $! > "$WAVE_PROJECT_DIR/grandchild.pid"\nwait\n'
    )
    configure(project_settings(project), "PreToolUse", str(hook), timeout=1)
    model_server.enqueue(tool_call("Glob", {"pattern": "*"}), text("done"))
    proc = run_wave("-p", "list", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "timed out after 1s" in proc.stderr
    pid = int((project / "grandchild.pid").read_text())
    assert not _alive(pid)
    tool_msg = model_server.requests[-1].body["messages"][-1]
    assert tool_msg["role"] == "tool" and "timed out" not in tool_msg["content"]  # went on


@pytest.mark.req("HK4")
def test_hk4_a_hook_that_is_not_found_is_one_warning_line_and_the_run_goes_on(
    model_server: ModelServer, project: Path
) -> None:
    configure(project_settings(project), "UserPromptSubmit", str(project / "missing-hook.sh"))
    model_server.enqueue(text("hello"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hello\n"
    lines = [x for x in proc.stderr.splitlines() if "missing-hook.sh" in x]
    assert len(lines) == 1 and "not found or not executable" in lines[0]


@pytest.mark.req("HK4")
def test_hk4_other_exit_codes_warn_and_go_on(model_server: ModelServer, project: Path) -> None:
    hook = script(project, "odd.sh", "echo 'something odd' >&2\nexit 3\n")
    configure(project_settings(project), "PreToolUse", str(hook))
    model_server.enqueue(tool_call("Glob", {"pattern": "*"}), text("done"))
    proc = run_wave("-p", "list", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "exited with 3: something odd" in proc.stderr
    assert "Refused" not in model_server.requests[-1].body["messages"][-1]["content"]


@pytest.mark.req("HK6")
def test_hk6_user_prompt_submit_stdout_joins_the_context_as_is_meta(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    """HK6: stdout of UserPromptSubmit and SessionStart reaches the model, saved as isMeta."""
    start = script(
        project, "start.sh", 'cat > "$WAVE_PROJECT_DIR/start.json"\necho "branch is main"\n'
    )
    submit = script(
        project, "submit.sh", 'cat > "$WAVE_PROJECT_DIR/submit.json"\necho "ticket ABC-7"\n'
    )
    configure(project_settings(project), "SessionStart", str(start))
    configure(project_settings(project), "UserPromptSubmit", str(submit))
    model_server.enqueue(text("noted"))
    proc = run_wave("-p", "what now", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    sent = contents(model_server.requests[0].body)
    assert any("branch is main" in c for c in sent) and any("ticket ABC-7" in c for c in sent)
    assert json.loads((project / "start.json").read_text())["source"] == "startup"
    assert json.loads((project / "submit.json").read_text())["prompt"] == "what now"
    (transcript,) = (isolated_home / ".wave" / "projects").glob("*/*.jsonl")
    metas = [json.loads(x) for x in transcript.read_text().splitlines()]
    saved = [m for m in metas if m.get("isMeta")]
    assert {m["content"] for m in saved} >= {"branch is main", "ticket ABC-7"}


@pytest.mark.req("HK6")
def test_hk6_session_start_source_is_resume_for_continue(
    model_server: ModelServer, project: Path
) -> None:
    start = script(
        project,
        "start.sh",
        'cat >> "$WAVE_PROJECT_DIR/start.jsonl"; echo >> "$WAVE_PROJECT_DIR/start.jsonl"\n',
    )
    configure(project_settings(project), "SessionStart", str(start))
    model_server.enqueue(text("one"), text("two"))
    assert run_wave("-p", "first", cwd=project, server=model_server).returncode == 0
    proc = run_wave("-p", "again", "--continue", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    sources = [
        json.loads(x)["source"] for x in (project / "start.jsonl").read_text().split("\n") if x
    ]
    assert sources == ["startup", "resume"]


@pytest.mark.req("HK4")
def test_hk4_user_prompt_submit_exit_2_drops_the_prompt_and_shows_stderr(
    model_server: ModelServer, project: Path
) -> None:
    hook = script(project, "deny.sh", "echo 'no prompts with secrets' >&2\nexit 2\n")
    configure(project_settings(project), "UserPromptSubmit", str(hook))
    proc = run_wave("-p", "my password is x", cwd=project, server=model_server)
    assert proc.returncode == 1
    assert "no prompts with secrets" in proc.stderr
    assert not [r for r in model_server.requests if r.path.endswith("/chat/completions")]


@pytest.mark.req("HK8")
def test_hk8_stop_exit_2_continues_the_turn_and_is_bounded(
    model_server: ModelServer, project: Path
) -> None:
    """HK8: a Stop hook that always blocks makes the agent go on at most three times."""
    hook = script(
        project,
        "stop.sh",
        'cat >> "$WAVE_PROJECT_DIR/stop.jsonl"; echo >> "$WAVE_PROJECT_DIR/stop.jsonl"\n'
        "echo 'run the tests first' >&2\nexit 2\n",
    )
    configure(project_settings(project), "Stop", str(hook))
    model_server.enqueue(text("a"), text("b"), text("c"), text("d"), text("e"))
    proc = run_wave("-p", "fix it", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    chats = [r for r in model_server.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 4
    assert proc.stdout == "d\n"
    assert any("run the tests first" in c for c in contents(chats[1].body))
    calls = [json.loads(x) for x in (project / "stop.jsonl").read_text().split("\n") if x]
    assert [c["stop_hook_active"] for c in calls] == [False, True, True, True]


@pytest.mark.req("HK1")
def test_hk1_hooks_from_every_settings_file_are_concatenated(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    log = project / "log.txt"
    for scope, settings in (
        ("user", isolated_home / ".wave" / "settings.json"),
        ("project", project_settings(project)),
        ("local", project / ".wave" / "settings.local.json"),
    ):
        configure(settings, "UserPromptSubmit", f"echo {scope} >> {log}; echo from-{scope}")
    model_server.enqueue(text("ok"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    # The hooks of one event run together, so the file's append order is a race; every one
    # ran, and their outputs reach the model in the settings files' order.
    assert sorted(log.read_text().split()) == ["local", "project", "user"]
    request = "\n".join(contents(model_server.requests[0].body))
    places = [request.index(f"from-{scope}") for scope in ("user", "project", "local")]
    assert places == sorted(places)


@pytest.mark.req("HK10")
def test_hk10_slash_hooks_lists_each_hook_and_its_file(
    model_server: ModelServer, project: Path
) -> None:
    configure(project_settings(project), "PreToolUse", "echo guard", matcher="Bash")
    proc = run_wave("-p", "/hooks", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "PreToolUse [Bash]: echo guard" in proc.stdout
    assert ".wave/settings.json" in proc.stdout
    assert not model_server.requests


@pytest.mark.req("HK9")
def test_hk9_hooks_never_run_inside_the_extraction_fork(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HK9: a PreToolUse hook that logs every call sees the main agent's call, not the fork's."""
    monkeypatch.delenv("WAVE_DISABLE_AUTO_MEMORY")
    log = project / "calls.log"
    hook = script(project, "log.sh", f"cat >> {log}; echo >> {log}\n")
    configure(project_settings(project), "PreToolUse", str(hook))
    configure(project_settings(project), "Stop", str(hook))
    model_server.enqueue(tool_call("Glob", {"pattern": "*.md"}), text("Done."), when=is_main)
    model_server.enqueue(tool_call("Glob", {"pattern": "*.txt"}), text("Nothing."), when=is_fork)
    proc = run_wave("-p", "I like tea", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert len([r for r in model_server.requests if is_fork(r.body)]) == 2  # the fork ran
    calls = [json.loads(x) for x in log.read_text().split("\n") if x]
    assert [(c["hook_event_name"], c.get("tool_input")) for c in calls] == [
        ("PreToolUse", {"pattern": "*.md"}),
        ("Stop", None),
    ]
