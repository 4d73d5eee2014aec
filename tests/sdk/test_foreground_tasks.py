"""004 §10's foreground tasks: `background_current_task()` moves the Bash command or subagent the
model runs in the foreground to the background (its tool call answers at once with the task id
and output file, the turn goes on, the work ends there and is announced), a program's own
`ForegroundTask`, and §4's subagent and configured-model callbacks. In-process against the
scripted server; the commands are real processes waiting on a file the test creates."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.sdk.test_message_queue import until
from tests.wire_view import is_child
from wave_tui import Agent, ForegroundTask, Message

GP = "general-purpose"


@pytest.fixture(autouse=True)
def no_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def after_tool(body: dict[str, Any]) -> bool:
    return not is_child(body) and body["messages"][-1].get("role") == "tool"


async def make_agent(project: Path, server: ModelServer, **options: Any) -> Agent:
    return await Agent.create(
        workdir=project,
        base_url=server.base_url,
        api_key="test-key",
        model="test-model",
        permission_mode="bypassPermissions",
        **options,
    )


async def moved(agent: Agent) -> str:
    """Move the foreground work to the background as soon as there is some."""
    while True:
        task_id = await agent.background_current_task()
        if task_id is not None:
            return task_id
        await asyncio.sleep(0.01)


@pytest.mark.req("SX9")
async def test_a_running_bash_command_moves_to_the_background_and_the_turn_goes_on(
    project: Path, model_server: ModelServer
) -> None:
    backgrounded: list[str] = []
    agent = await make_agent(
        project,
        model_server,
        callbacks={"on_background_current_task": lambda: backgrounded.append("moved")},
    )
    try:
        command = "echo started; while [ ! -e go ]; do sleep 0.05; done; echo finished"
        model_server.enqueue(tool_call("Bash", {"command": command}))
        model_server.enqueue(text("went on"), when=after_tool)
        turn = asyncio.ensure_future(agent.send_message("run the long thing"))
        task_id = await moved(agent)
        reply = await turn
        assert (reply.status, reply.text) == ("completed", "went on")
        (task,) = agent.background_tasks
        assert (task.id, task.kind, task.command, task.status) == (
            task_id,
            "bash",
            command,
            "running",
        )
        result = [m for m in agent.messages if m.role == "tool"][-1].content
        assert f"task id {task_id}" in result and str(task.output_file) in result
        assert backgrounded == ["moved"]
        assert await agent.background_current_task() is None  # nothing runs in the foreground

        (project / "go").touch()
        await until(lambda: agent.background_tasks[0].status != "running")
        assert agent.background_tasks[0].status == "completed"
        output = await agent.get_background_shell_output(task_id)
        assert output is not None and output.content == "started\nfinished"
        # The completion reaches the model with the next request, as run_in_background's does.
        model_server.enqueue(text("noted"))
        await agent.send_message("anything new?")
        sent = json.dumps(model_server.last_request.body["messages"])
        assert "<task-notification>" in sent and task_id in sent
    finally:
        await agent.destroy()


@pytest.mark.req("SX9")
async def test_a_running_subagent_moves_to_the_background_and_finishes_there(
    project: Path, model_server: ModelServer
) -> None:
    hold = threading.Event()
    agent = await make_agent(project, model_server)
    try:
        model_server.enqueue(text("CHILD-RESULT", hold=hold), when=is_child)
        model_server.enqueue(
            tool_call("Agent", {"description": "dig", "prompt": "dig deep", "subagent_type": GP}),
            when=lambda b: not is_child(b),
        )
        model_server.enqueue(text("carrying on"), when=after_tool)
        turn = asyncio.ensure_future(agent.send_message("delegate"))
        task_id = await moved(agent)
        reply = await turn
        assert (reply.status, reply.text) == ("completed", "carrying on")
        (task,) = agent.background_tasks
        assert (task.id, task.kind, task.status) == (task_id, "agent", "running")
        result = [m for m in agent.messages if m.role == "tool"][-1].content
        assert f"task id {task_id}" in result and "CHILD-RESULT" not in result

        hold.set()
        await until(lambda: agent.background_tasks[0].status != "running")
        assert agent.background_tasks[0].status == "completed"
        output = await agent.get_background_task_output(task_id)
        assert output is not None and "CHILD-RESULT" in output.content
    finally:
        hold.set()
        await agent.destroy()


@pytest.mark.req("SX9")
async def test_a_programs_own_foreground_task(project: Path, model_server: ModelServer) -> None:
    calls: list[str] = []

    async def to_background() -> None:
        calls.append("async")

    agent = await make_agent(project, model_server)
    try:
        assert await agent.background_current_task() is None
        agent.register_foreground_task(ForegroundTask("first", lambda: calls.append("sync")))
        agent.register_foreground_task(ForegroundTask("second", to_background, "mine"))
        assert agent.unregister_foreground_task("first")
        assert not agent.unregister_foreground_task("first")
        assert await agent.background_current_task() == "second"
        assert calls == ["async"]
        assert await agent.background_current_task() is None
        with pytest.raises(TypeError):
            agent.register_foreground_task("second")  # type: ignore[arg-type]
    finally:
        await agent.destroy()


@pytest.mark.req("SX5")
async def test_subagent_messages_and_tokens_and_the_configured_models(
    project: Path, model_server: ModelServer
) -> None:
    users: list[tuple[str, Message]] = []
    assistants: list[tuple[str, str]] = []
    tokens: list[tuple[str, int]] = []
    models: list[list[str]] = []
    agent = await make_agent(
        project,
        model_server,
        callbacks={
            "on_subagent_user_message_added": lambda sid, m: users.append((sid, m)),
            "on_subagent_assistant_message_added": lambda sid, mid: assistants.append((sid, mid)),
            "on_subagent_latest_total_tokens_change": lambda sid, n: tokens.append((sid, n)),
            "on_configured_models_change": models.append,
        },
    )
    try:
        model_server.enqueue(text("CHILD-RESULT"), when=is_child)
        model_server.enqueue(
            tool_call(
                "Agent", {"description": "look", "prompt": "look around", "subagent_type": GP}
            ),
            when=lambda b: not is_child(b),
        )
        model_server.enqueue(text("done"), when=after_tool)
        await agent.send_message("delegate")
        ((sid, message),) = users
        assert message.role == "user" and "look around" in message.content
        assert [s for s, _ in assistants] == [sid] and assistants[0][1]
        assert tokens and tokens[-1][0] == sid and tokens[-1][1] > 0
        assert models == []  # nothing changed yet

        settings = project / ".wave" / "settings.json"
        settings.parent.mkdir()
        settings.write_text(json.dumps({"models": {"big-model": {}}}))
        model_server.enqueue(text("ok"))
        await agent.send_message("again")
        assert models and "big-model" in models[-1] and "test-model" in models[-1]
        agent.set_model("other-model")
        assert "other-model" in models[-1]
    finally:
        await agent.destroy()
