"""Background agents through `wave -p`: `Agent(run_in_background: true)` answers at once with
a task id and output file, `TaskOutput` reads it, the completions arrive batched as one
`<task-notification>` message with task-type `agent`; a stopped one is never announced; one still
running when the session ends is ended with it and marked."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, Reply, text, tool_calls
from tests.wave_cli import run_wave
from tests.wire_view import is_child, main_chats, tool_results
from wave_tui.agent.service import AgentService

BYPASS = ("--permission-mode", "bypassPermissions")
GP = "general-purpose"


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def asks(word: str) -> Any:
    return lambda b: is_child(b) and word in json.dumps(b["messages"][-1])


def task_ids(body: dict[str, Any]) -> list[str]:
    return [
        m.group(1)
        for c in tool_results(body)
        if (m := re.search(r"task id (a[0-9a-f]+)", c)) is not None
    ]


def called(body: dict[str, Any], name: str) -> bool:
    """The main agent's last reply called `name`."""
    replies = [m for m in body["messages"] if m["role"] == "assistant"]
    return bool(replies) and f'"name": "{name}"' in json.dumps(replies[-1])


def agent(prompt: str) -> tuple[str, dict[str, Any]]:
    return (
        "Agent",
        {"description": prompt, "prompt": prompt, "subagent_type": GP, "run_in_background": True},
    )


def on_ids(make: Any) -> Any:
    """A responder for the main agent's next request: the calls `make(ids)` once the Agent
    results (with their task ids) are the last tool messages."""

    def respond(body: dict[str, Any]) -> Reply | None:
        if is_child(body):
            return None
        last = body["messages"][-1]
        ids = task_ids(body)
        if last.get("role") == "tool" and ids and "Agent running" in str(last.get("content")):
            return make(ids)
        return None

    return respond


@pytest.mark.req("BA1")
@pytest.mark.req("BA2")
@pytest.mark.req("BA3")
def test_background_agents_answer_at_once_and_are_announced_batched(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(text("ONE-RESULT"), when=asks("bg-one"))
    model_server.enqueue(text("TWO-RESULT"), when=asks("bg-two"))
    model_server.enqueue(
        tool_calls([agent("bg-one"), agent("bg-two")]), when=lambda b: not is_child(b)
    )
    model_server.responder = on_ids(
        lambda ids: tool_calls([("TaskOutput", {"task_id": i, "block": True}) for i in ids])
    )
    model_server.enqueue(
        text("all done"),
        when=lambda b: not is_child(b) and called(b, "TaskOutput"),
    )
    proc = run_wave("-p", "delegate", *BYPASS, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "all done"
    bodies = main_chats(model_server)
    started = tool_results(bodies[1])
    ids = task_ids(bodies[1])
    assert len(ids) == 2 and all("Output is written" not in s for s in started)
    outputs = [m.group(0) for s in started if (m := re.search(r"\S+\.log", s))]
    assert len(outputs) == 2
    read = tool_results(bodies[2])[-2:]
    assert "Status: completed" in read[0] and "ONE-RESULT" in read[0]
    assert "TWO-RESULT" in read[1]
    assert "ONE-RESULT" in Path(outputs[0]).read_text()
    # Both completions in one isMeta message before the next request (on the wire it is folded
    # into the last tool message, as isMeta text is).
    notes = [
        str(m["content"])
        for m in bodies[-1]["messages"]
        if "<task-notification>" in str(m["content"])
    ]
    assert len(notes) == 1 and all("<task-notification>" not in json.dumps(b) for b in bodies[:2])
    note = notes[0][notes[0].index("A background agent completed a task:") :]
    assert note.count("<task-type>agent</task-type>") == 2
    assert all(f"<task-id>{i}</task-id>" in note for i in ids)
    assert "<status>completed</status>" in note and outputs[0] in note


@pytest.mark.req("BA2")
@pytest.mark.req("BA3")
def test_task_stop_ends_an_agent_and_it_is_never_announced(
    model_server: ModelServer, project: Path
) -> None:
    hold = threading.Event()
    try:
        model_server.enqueue(Reply(content="never", hold=hold), when=asks("slow-one"))
        model_server.enqueue(tool_calls([agent("slow-one")]), when=lambda b: not is_child(b))
        model_server.responder = on_ids(
            lambda ids: tool_calls(
                [("TaskStop", {"task_id": ids[0]}), ("TaskOutput", {"task_id": ids[0]})]
            )
        )
        model_server.enqueue(
            tool_calls([("Bash", {"command": "echo later"})]),
            when=lambda b: not is_child(b) and called(b, "TaskStop"),
        )
        model_server.enqueue(
            text("stopped it"), when=lambda b: not is_child(b) and called(b, "Bash")
        )
        proc = run_wave("-p", "delegate", *BYPASS, cwd=project, server=model_server)
    finally:
        hold.set()
    assert proc.returncode == 0, proc.stderr
    bodies = main_chats(model_server)
    stopped, output = tool_results(bodies[2])[-2:]
    assert stopped.startswith("Stopped background task a")
    assert "Status: killed" in output
    assert all("<task-notification>" not in json.dumps(b["messages"]) for b in bodies)


@pytest.mark.req("BA1")
def test_an_agent_still_running_ends_with_its_session_and_is_marked(
    model_server: ModelServer, project: Path
) -> None:
    hold = threading.Event()
    try:
        model_server.enqueue(Reply(content="never", hold=hold), when=asks("outlives"))
        model_server.enqueue(tool_calls([agent("outlives")]), when=lambda b: not is_child(b))
        model_server.enqueue(text("left it running"), when=lambda b: not is_child(b))
        proc = run_wave("-p", "delegate", *BYPASS, cwd=project, server=model_server)
    finally:
        hold.set()
    assert proc.returncode == 0, proc.stderr
    (started,) = tool_results(main_chats(model_server)[1])
    match = re.search(r"\S+\.log", started)
    assert match is not None
    assert "[stopped: the session ended" in Path(match.group(0)).read_text()


@pytest.mark.req("BA3")
def test_task_output_reads_a_background_command_too(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(
        tool_calls([("Bash", {"command": "echo BG-WORDS", "run_in_background": True})])
    )

    def respond(body: dict[str, Any]) -> Reply | None:
        found = re.search(r"task id (b[0-9a-f]+)", json.dumps(body["messages"][-1]))
        if found is None or body["messages"][-1].get("role") != "tool":
            return None
        return tool_calls([("TaskOutput", {"task_id": found.group(1), "block": True})])

    model_server.responder = respond
    model_server.enqueue(text("read it"), when=lambda b: called(b, "TaskOutput"))
    proc = run_wave("-p", "run it", *BYPASS, cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (read,) = tool_results(main_chats(model_server)[-1])[-1:]
    assert "Status: completed" in read and "BG-WORDS" in read


def bypass_service(model_server: ModelServer, project: Path) -> AgentService:
    """An in-process service on the scripted server, every tool allowed, no auto memory."""
    from wave_tui.agent.service import AgentOptions
    from wave_tui.session.factory import create_service

    env = {
        "WAVE_BASE_URL": model_server.base_url,
        "WAVE_API_KEY": "k",
        "WAVE_MODEL": "test-model",
        "WAVE_DISABLE_AUTO_MEMORY": "1",
    }
    return create_service(
        AgentOptions(workdir=project, environ=env, permission_mode="bypassPermissions")
    )


@pytest.mark.req("BA1")
async def test_tasks_lists_a_running_background_agent_with_its_last_step(
    model_server: ModelServer, project: Path
) -> None:
    service = bypass_service(model_server, project)
    hold = threading.Event()
    try:
        model_server.enqueue(
            tool_calls([("Bash", {"command": "echo step"})]), when=asks("watch-me")
        )
        model_server.enqueue(Reply(content="late", hold=hold), when=is_child)
        model_server.enqueue(tool_calls([agent("watch-me")]), when=lambda b: not is_child(b))
        model_server.enqueue(text("started"), when=lambda b: not is_child(b))
        await service.run_turn("delegate")
        for _ in range(400):  # the child runs on this loop: wait without blocking it
            if len(model_server.requests) >= 4:
                break
            await asyncio.sleep(0.025)
        shown = (await service.run_turn("/tasks")).text
        assert "Background agents:" in shown
        assert "[running] watch-me — [tool] Bash echo step" in shown
    finally:
        hold.set()
        await service.destroy()


@pytest.mark.req("FH8")
async def test_an_idle_session_hears_a_background_agent_finish(
    model_server: ModelServer, project: Path
) -> None:
    """The turn that started the agent has ended and nobody types: the agent's end starts a
    turn by itself, whose request carries the task-notification."""
    service = bypass_service(model_server, project)
    hold = threading.Event()
    try:
        model_server.enqueue(Reply(content="BG-DONE", hold=hold), when=is_child)
        model_server.enqueue(tool_calls([agent("slow-job")]), when=lambda b: not is_child(b))
        model_server.enqueue(text("started it"), when=lambda b: not is_child(b))
        model_server.enqueue(text("the job is done"), when=lambda b: not is_child(b))
        first = await service.run_turn("delegate")
        assert first.text == "started it"
        assert len(main_chats(model_server)) == 2
        hold.set()  # the agent finishes now, with the session idle
        for _ in range(800):  # the wake-up turn runs on this loop: wait without blocking it
            if len(main_chats(model_server)) >= 3 and not service.turns.busy:
                break
            await asyncio.sleep(0.025)
        woken = main_chats(model_server)[2]
        assert "<task-notification>" in json.dumps(woken["messages"][-1])
        assert [m["content"] for m in woken["messages"] if m["role"] == "user"][-2] == "delegate"
        assert service.messages[-1].content == "the job is done"
    finally:
        hold.set()
        await service.destroy()
