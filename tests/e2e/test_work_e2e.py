"""Issue 18 through `wave -p`: tasks, the task reminder, background commands, TaskStop, WebFetch,
AskUserQuestion / plan mode refused, subagents — each against the scripted model server."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, Reply, text, tool_call, tool_calls
from tests.processes import alive
from tests.wave_cli import WAVE, run_wave
from tests.wire_view import chats, tool_results
from wave_tui.config.paths import WavePaths
from wave_tui.features.subagents.definitions import EXPLORE_PROMPT, GENERAL_PURPOSE_PROMPT
from wave_tui.features.tasks.reminder import TASK_REMINDER_MARKER
from wave_tui.tools.ask_user import NO_USER
from wave_tui.tools.plan_mode import NO_CONTROLLER

ROOT = Path(__file__).resolve().parents[2]
BYPASS = ("--permission-mode", "bypassPermissions")


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


# Not wire_view.main_chats: this run also has the fast model's and the explorer's requests.
def main_chats(server: ModelServer) -> list[dict[str, Any]]:
    return [b for b in chats(server) if b["model"] == "test-model" and not _is_subagent(b)]


def _is_subagent(body: dict[str, Any]) -> bool:
    system = json.dumps(body["messages"][0])
    return "You are a subagent" in system or "read-only explorer" in system


def texts(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"])


def session_of(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["session_id"])


def transcript_lines(project: Path, session_id: str) -> list[dict[str, Any]]:
    path = WavePaths.for_workdir(project).project_dir / f"{session_id}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _gone(pid: int) -> bool:
    return not alive(pid)


def wait_gone(pid: int) -> bool:
    """True once `pid` has ended (it was signalled already; reaping may lag a little)."""
    for _ in range(200):
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def background_pid(body: dict[str, Any]) -> int:
    for content in tool_results(body):
        match = re.search(r"\(pid (\d+)\)", content)
        if match:
            return int(match.group(1))
    raise AssertionError("no background pid in the tool results")


def background_id(body: dict[str, Any]) -> str:
    for content in tool_results(body):
        match = re.search(r"task id (b[0-9a-f]+)", content)
        if match:
            return match.group(1)
    raise AssertionError("no background task id in the tool results")


def task_id_in(result: str, body: dict[str, Any]) -> bool:
    return background_id(body) in result


# -- tasks -----------------------------------------------------------------------------------
@pytest.mark.req("TK1", "TK2")
def test_tk1_task_create_update_list_through_wave_p(
    model_server: ModelServer, project: Path
) -> None:
    """TK1, TK2: the task tools change the list under ~/.wave/tasks/<session-id>/."""
    model_server.enqueue(
        tool_call("TaskCreate", {"subject": "Write docs", "activeForm": "Writing docs"}),
        tool_call("TaskUpdate", {"taskId": "1", "status": "in_progress"}),
        tool_call("TaskList", {}),
        text("tracked"),
    )
    proc = run_wave("-p", "plan work", "--output-format", "json", cwd=project, server=model_server)
    session = session_of(proc)
    stored = json.loads(
        (WavePaths.for_workdir(project).task_list_dir(session) / "tasks.json").read_text()
    )
    (task,) = stored["tasks"]
    assert task["subject"] == "Write docs" and task["status"] == "in_progress"
    assert task["activeForm"] == "Writing docs"
    last = tool_results(chats(model_server)[-1])
    assert last[0].startswith("Task #1 created: Write docs")
    assert "Write docs" in last[-1] and "in_progress" in last[-1]


@pytest.mark.req("TK4")
def test_tk4_task_reminder_after_ten_replies_is_persisted(
    model_server: ModelServer, project: Path
) -> None:
    """TK4: an open task and ten replies without a task tool → the isMeta reminder joins the
    next request and the transcript."""
    model_server.enqueue(
        tool_call("TaskCreate", {"subject": "Refactor parser"}),
        *[tool_call("Glob", {"pattern": "*.none"}) for _ in range(10)],
        text("done"),
    )
    proc = run_wave("-p", "work", "--output-format", "json", cwd=project, server=model_server)
    session = session_of(proc)
    bodies = chats(model_server)
    with_reminder = [i for i, b in enumerate(bodies) if TASK_REMINDER_MARKER in texts(b)]
    assert with_reminder and with_reminder[0] == 11  # after the 10th reply without task tools
    reminders = [
        m
        for m in transcript_lines(project, session)
        if str(m.get("content", "")).startswith(TASK_REMINDER_MARKER)
    ]
    assert len(reminders) == 1 and reminders[0]["isMeta"] is True
    assert "Refactor parser" in reminders[0]["content"]


# -- background commands ------------------------------------------------------------------------
def _poll_until_notified(body: dict[str, Any]) -> Reply:
    if "<task-notification>" in texts(body):
        return text("noticed")
    return tool_call("Bash", {"command": "sleep 0.1"})


@pytest.mark.req("BG1", "BG3")
def test_bg3_background_bash_and_notification_on_next_request(
    model_server: ModelServer, project: Path
) -> None:
    """BG1, BG3: a background command answers with its id at once; when it ends, the persisted
    isMeta <task-notification> joins the next request."""
    model_server.responder = _poll_until_notified
    model_server.enqueue(
        tool_call("Bash", {"command": "echo from-bg", "run_in_background": True}),
    )
    proc = run_wave("-p", "bg", "--output-format", "json", cwd=project, server=model_server)
    session = session_of(proc)
    assert json.loads(proc.stdout)["result"] == "noticed"
    bodies = chats(model_server)
    task_id = background_id(bodies[1])
    notified = next(b for b in bodies if "<task-notification>" in texts(b))
    assert f"<task-id>{task_id}</task-id>" in texts(notified)
    assert "<status>completed</status>" in texts(notified)
    meta = [m for m in transcript_lines(project, session) if "<task-notification>" in str(m)]
    assert len(meta) == 1 and meta[0]["isMeta"] is True and meta[0]["role"] == "user"
    output = re.search(r"<output-file>([^<]+)</output-file>", meta[0]["content"])
    assert output and Path(output.group(1)).read_text() == "from-bg\n"


@pytest.mark.req("BG2", "BG3")
def test_bg2_task_stop_kills_and_sends_no_notification(
    model_server: ModelServer, project: Path
) -> None:
    """BG2, BG3: TaskStop ends the command's process group; a killed task is never notified."""

    def respond(body: dict[str, Any]) -> Reply | None:
        results = tool_results(body)
        if len(results) == 1:
            return tool_call("TaskStop", {"task_id": background_id(body)})
        if len(results) == 2:
            return tool_call("Bash", {"command": "sleep 0.3"})
        return text("stopped")

    model_server.responder = respond
    model_server.enqueue(
        tool_call("Bash", {"command": "sleep 300", "run_in_background": True}),
    )
    proc = run_wave(
        "-p", "stop it", "--output-format", "json", *BYPASS, cwd=project, server=model_server
    )
    session_of(proc)
    bodies = chats(model_server)
    pid = background_pid(bodies[1])
    assert _gone(pid) or wait_gone(pid)
    assert not any("<task-notification>" in texts(b) for b in bodies)
    assert task_id_in(tool_results(bodies[2])[-1], bodies[1])


@pytest.mark.req("BG4")
def test_bg4_wave_p_ends_background_commands_when_it_exits(
    model_server: ModelServer, project: Path
) -> None:
    """BG4: `wave -p` does not wait for background commands: it ends their process groups."""
    model_server.enqueue(
        tool_call("Bash", {"command": "sleep 300", "run_in_background": True}),
        text("left it running"),
    )
    proc = run_wave(
        "-p", "bg", "--output-format", "json", *BYPASS, cwd=project, server=model_server
    )
    session_of(proc)
    assert wait_gone(background_pid(chats(model_server)[1]))


@pytest.mark.req("BG4")
def test_bg4_sigterm_aborts_the_turn_and_ends_background_commands(
    model_server: ModelServer, project: Path
) -> None:
    """BG4: a real SIGTERM to `wave -p` aborts the turn, cleanup still runs, exit code 143."""
    model_server.enqueue(
        tool_call("Bash", {"command": "sleep 300", "run_in_background": True}),
        tool_call("Bash", {"command": "sleep 60"}),
    )
    env = model_server.env(PYTHONPATH=str(ROOT))
    child = subprocess.Popen(
        [*WAVE, "-p", "work", "--permission-mode", "bypassPermissions"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        model_server.wait_for_requests(2, timeout=30)
        pid = background_pid(chats(model_server)[1])
        child.send_signal(signal.SIGTERM)
        _out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 143, err
    assert "terminated" in err
    assert wait_gone(pid)


# -- web ----------------------------------------------------------------------------------------
class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html><body><h1>Release notes</h1><p>Version 7 adds tasks.</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def page_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/notes"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.req("WF1")
def test_wf1_web_fetch_answer_comes_from_the_fast_model(
    model_server: ModelServer, project: Path, page_server: str
) -> None:
    """WF1: WebFetch GETs a local page, converts it to Markdown, and the fast model's answer
    over it is the tool result."""
    model_server.enqueue(text("Version 7 adds tasks."), when=lambda b: b["model"] == "fast")
    model_server.enqueue(
        tool_call("WebFetch", {"url": page_server, "prompt": "What does version 7 add?"}),
        text("It adds tasks."),
        when=lambda b: b["model"] == "test-model",
    )
    proc = run_wave(
        "-p",
        "read the notes",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
        cwd=project,
        server=model_server,
        env={"WAVE_FAST_MODEL": "fast"},
    )
    session_of(proc)
    fast = [b for b in chats(model_server) if b["model"] == "fast"]
    assert len(fast) == 1
    asked = fast[0]["messages"][-1]["content"]
    assert "# Release notes" in asked and "What does version 7 add?" in asked
    assert tool_results(main_chats(model_server)[-1]) == ["Version 7 adds tasks."]


# -- no user in -p ------------------------------------------------------------------------------
@pytest.mark.req("AQ2", "PL3")
def test_aq2_pl3_question_and_plan_mode_refused_in_wave_p(
    model_server: ModelServer, project: Path
) -> None:
    """AQ2, PL3: with nobody to answer, AskUserQuestion, EnterPlanMode and ExitPlanMode refuse
    and tell the model why."""
    question = {
        "question": "Which library?",
        "header": "Library",
        "options": [{"label": "httpx"}, {"label": "requests"}],
    }
    model_server.enqueue(
        tool_calls(
            [
                ("AskUserQuestion", {"questions": [question]}),
                ("EnterPlanMode", {}),
                ("ExitPlanMode", {"plan": "1. do it"}),
            ]
        ),
        text("assumed httpx"),
    )
    proc = run_wave("-p", "choose", "--output-format", "json", cwd=project, server=model_server)
    session_of(proc)
    assert tool_results(chats(model_server)[-1]) == [NO_USER, NO_CONTROLLER, NO_CONTROLLER]
    assert not WavePaths.for_workdir(project).plan_file("x").parent.exists()


# -- subagents ----------------------------------------------------------------------------------
@pytest.mark.req("AG1", "AG3")
def test_ag1_explore_runs_on_the_fast_model_with_its_own_transcript(
    model_server: ModelServer, project: Path
) -> None:
    """AG1, AG3: Explore runs its own loop on the fast model, read-only tools only, writes its
    own transcript under the session folder, and its final text is the tool result."""
    (project / "parser.py").write_text("def parse(): ...\n")
    model_server.enqueue(
        tool_call("Glob", {"pattern": "*.py"}),
        text("parser.py defines parse()."),
        when=lambda b: b["model"] == "fast",
    )
    model_server.enqueue(
        tool_call(
            "Agent",
            {"description": "Find parser", "prompt": "Where is parse?", "subagent_type": "Explore"},
        ),
        text("parse is in parser.py"),
        when=lambda b: b["model"] == "test-model",
    )
    proc = run_wave(
        "-p",
        "find parse",
        "--output-format",
        "json",
        cwd=project,
        server=model_server,
        env={"WAVE_FAST_MODEL": "fast"},
    )
    session = session_of(proc)
    fast = [b for b in chats(model_server) if b["model"] == "fast"]
    assert len(fast) == 2
    assert EXPLORE_PROMPT.splitlines()[0] in json.dumps(fast[0]["messages"][0])
    offered = {t["function"]["name"] for t in fast[0]["tools"]}
    assert offered == {"Glob", "Grep", "Read", "Bash"}
    assert "parser.py" in tool_results(fast[1])[0]
    assert tool_results(main_chats(model_server)[-1]) == ["parser.py defines parse()."]
    folder = WavePaths.for_workdir(project).project_dir / session / "subagents"
    (transcript,) = folder.glob("agent_*.jsonl")
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert lines[0]["role"] == "user" and lines[0]["content"] == "Where is parse?"
    assert lines[-1]["role"] == "assistant" and lines[-1]["content"] == "parser.py defines parse()."


@pytest.mark.req("AG5")
def test_ag5_two_agent_calls_of_one_reply_run_concurrently(
    model_server: ModelServer, project: Path
) -> None:
    """AG5: two Agent calls in one reply run at the same time — the first subagent waits for a
    file only the second one creates (run one by one, the first would time out)."""

    def child(body: dict[str, Any]) -> bool:
        return "You are a subagent" in json.dumps(body["messages"][0])

    def asks(word: str) -> Any:
        return lambda b: child(b) and b["messages"][-1].get("content") == word

    wait = "for i in $(seq 1 200); do [ -f b.flag ] && break; sleep 0.05; done; test -f b.flag && echo A-saw-B"
    model_server.enqueue(tool_call("Bash", {"command": wait, "timeout": 15}), when=asks("task-a"))
    model_server.enqueue(tool_call("Bash", {"command": "touch b.flag"}), when=asks("task-b"))
    model_server.enqueue(
        text("A done"), when=lambda b: child(b) and "A-saw-B" in "\n".join(tool_results(b))
    )
    model_server.enqueue(
        text("B done"),
        when=lambda b: child(b) and "task-b" in texts(b) and len(tool_results(b)) == 1,
    )
    model_server.enqueue(
        tool_calls(
            [
                (
                    "Agent",
                    {"description": "A", "prompt": "task-a", "subagent_type": "general-purpose"},
                ),
                (
                    "Agent",
                    {"description": "B", "prompt": "task-b", "subagent_type": "general-purpose"},
                ),
            ]
        ),
        text("both finished"),
        when=lambda b: not child(b),
    )
    proc = run_wave(
        "-p",
        "two at once",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
        cwd=project,
        server=model_server,
    )
    session = session_of(proc)
    assert tool_results(main_chats(model_server)[-1]) == ["A done", "B done"]
    folder = WavePaths.for_workdir(project).project_dir / session / "subagents"
    assert len(list(folder.glob("agent_*.jsonl"))) == 2
    assert GENERAL_PURPOSE_PROMPT.splitlines()[0] in json.dumps(
        next(b for b in chats(model_server) if child(b))["messages"][0]
    )


@pytest.mark.req("TK2")
def test_tk2_resumed_session_keeps_its_task_list(model_server: ModelServer, project: Path) -> None:
    """TK2: `--continue` works on the resumed session's list (its id names the folder)."""
    model_server.enqueue(tool_call("TaskCreate", {"subject": "Carry over"}), text("made"))
    first = session_of(
        run_wave("-p", "make", "--output-format", "json", cwd=project, server=model_server)
    )
    model_server.enqueue(tool_call("TaskList", {}), text("listed"))
    proc = run_wave(
        "-p", "list", "--continue", "--output-format", "json", cwd=project, server=model_server
    )
    assert session_of(proc) == first
    assert "Carry over" in tool_results(chats(model_server)[-1])[-1]


@pytest.mark.req("TK2")
def test_tk2_task_list_env_shares_one_list(model_server: ModelServer, project: Path) -> None:
    """TK2: WAVE_TASK_LIST_ID names the list; a new session with it sees the same tasks."""
    env = {"WAVE_TASK_LIST_ID": "team"}
    model_server.enqueue(tool_call("TaskCreate", {"subject": "Shared"}), text("made"))
    session_of(
        run_wave("-p", "a", "--output-format", "json", cwd=project, server=model_server, env=env)
    )
    model_server.enqueue(tool_call("TaskList", {}), text("listed"))
    session_of(
        run_wave("-p", "b", "--output-format", "json", cwd=project, server=model_server, env=env)
    )
    assert "Shared" in tool_results(chats(model_server)[-1])[-1]
    assert (WavePaths.for_workdir(project).task_list_dir("team") / "tasks.json").is_file()


@pytest.mark.req("TK5")
def test_tk5_reminder_counter_survives_resume(model_server: ModelServer, project: Path) -> None:
    """TK5: the replies since the last task tool are counted from the transcript, so seven in
    one run and three after `--continue` bring the reminder."""
    model_server.enqueue(
        tool_call("TaskCreate", {"subject": "Long job"}),
        *[tool_call("Glob", {"pattern": "*.none"}) for _ in range(6)],
        text("paused"),
    )
    session_of(run_wave("-p", "start", "--output-format", "json", cwd=project, server=model_server))
    assert not any(TASK_REMINDER_MARKER in texts(b) for b in chats(model_server))
    model_server.reset()
    model_server.enqueue(
        *[tool_call("Glob", {"pattern": "*.none"}) for _ in range(4)],
        text("resumed"),
    )
    proc = run_wave(
        "-p", "go on", "--continue", "--output-format", "json", cwd=project, server=model_server
    )
    session_of(proc)
    marked = [i for i, b in enumerate(chats(model_server)) if TASK_REMINDER_MARKER in texts(b)]
    assert marked and marked[0] == 3
