"""SDK programs run as subprocesses against the scripted server: the options, methods and
callbacks the docs' examples do not show, the bad input and the destroyed agent."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest

from tests.model_server import ModelServer, error, text, tool_call, tool_calls
from tests.sdk.programs import QUIET, ROOT, run_program

DEMO_MCP = ROOT / "tests" / "mcp" / "servers" / "demo_server.py"

BAD_OPTIONS = """
import asyncio
from wave_tui import Agent

CASES = [
    {"model": 3}, {"fast_model": ""}, {"api_key": ["k"]}, {"base_url": 1},
    {"default_headers": {"X": 1}}, {"default_headers": "X: 1"}, {"workdir": 5},
    {"workdir": "/no/such/folder"}, {"restore_session_id": 7},
    {"continue_last_session": "yes"}, {"system_prompt": 1}, {"permission_mode": "yolo"},
    {"can_use_tool": "allow"}, {"allowed_tools": "Read"}, {"disallowed_tools": [1]},
    {"custom_tools": [print]}, {"custom_tools": "x"}, {"hooks": []}, {"mcp_servers": "x"},
    {"plugins": ["p"]}, {"language": 2}, {"max_input_tokens": 0}, {"max_tokens": True},
    {"callbacks": {"on_nothing": print}}, {"callbacks": {"on_usages_change": 1}},
    {"colour": "blue"},
]


async def main() -> None:
    for case in CASES:
        try:
            agent = await Agent.create(**case)
        except (TypeError, ValueError) as exc:
            print(type(exc).__name__, "|", exc)
        else:
            print("ACCEPTED", case)
            await agent.destroy()


asyncio.run(main())
"""


@pytest.mark.req("SD2")
def test_every_wrong_option_is_named(project: Path, model_server: ModelServer) -> None:
    done = run_program(BAD_OPTIONS, cwd=project, server=model_server)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    names = [
        "model", "fast_model", "api_key", "base_url", "default_headers", "default_headers",
        "workdir", "workdir", "restore_session_id", "continue_last_session", "system_prompt",
        "permission_mode", "can_use_tool", "allowed_tools", "disallowed_tools", "custom_tools",
        "custom_tools", "hooks", "mcp_servers", "plugins", "language", "max_input_tokens",
        "max_tokens", "callbacks", "callbacks", "colour",
    ]  # fmt: skip
    assert len(lines) == len(names)
    for line, name in zip(lines, names, strict=True):
        assert line.startswith(("TypeError |", "ValueError |")), line
        assert f"'{name}'" in line, line
    assert model_server.requests == []  # nothing started


DESTROYED = """
import asyncio
from wave_tui import Agent, AgentDestroyed


async def main() -> None:
    async with await Agent.create() as agent:
        print("reply:", (await agent.send_message("hi")).text)
    await agent.destroy()  # after `async with` destroyed it: nothing happens
    calls = {
        "send_message": lambda: agent.send_message("x"),
        "stream": lambda: agent.stream("x").__anext__(),
        "compact": lambda: agent.compact(),
        "truncate_history": lambda: agent.truncate_history(0),
        "restore_session": lambda: agent.restore_session("x"),
        "abort": lambda: agent.abort(),
        "session_id": lambda: agent.session_id,
        "messages": lambda: agent.messages,
        "usages": lambda: agent.usages,
    }
    for name, call in calls.items():
        try:
            result = call()
            if asyncio.iscoroutine(result) or hasattr(result, "__await__"):
                await result
            print(name, "no error")
        except AgentDestroyed as exc:
            print(name, "AgentDestroyed", exc)


asyncio.run(main())
"""


@pytest.mark.req("SD3")
def test_every_method_after_destroy_raises(project: Path, model_server: ModelServer) -> None:
    done = run_program(DESTROYED, cwd=project, server=model_server)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "reply: OK"
    assert len(lines) == 10
    assert all(line.endswith("AgentDestroyed Agent destroyed") for line in lines[1:]), lines


CALLBACKS = """
import asyncio, json, sys
from wave_tui import Agent

log = []


class Callbacks:
    # An object with the methods works like a dict of them.
    def on_session_id_change(self, sid): log.append(["session", sid == agent_id()])
    def on_latest_total_tokens_change(self, n): log.append(["tokens", n > 0])
    def on_assistant_reasoning_updated(self, u): log.append(["reasoning", u.chunk, u.stage])
    def on_error_block_added(self, e): log.append(["error", "scripted bad request" in e])
    def on_compact_block_added(self, summary): log.append(["compact", summary])
    def on_compaction_state_change(self, busy): log.append(["compacting", busy])
    def on_queued_messages_change(self, queued): log.append(["queue", [m.content for m in queued]])
    def on_tasks_change(self, tasks): log.append(["tasks", [(t.subject, t.status) for t in tasks]])
    async def on_user_message_added(self, message):
        await asyncio.sleep(0)
        log.append(["user (async)", message.content])


async def main() -> None:
    global agent_id
    agent = await Agent.create(callbacks=Callbacks(), fast_model="fast")
    agent_id = lambda: agent.session_id
    await agent.send_message("think")
    await agent.send_message("plan")
    await agent.send_message("fail")
    await agent.compact()
    await agent.destroy()
    print(json.dumps(log))


asyncio.run(main())
"""


@pytest.mark.req("SD4")
def test_callbacks_of_reasoning_tokens_errors_tasks_and_compaction(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(
        text("Answer", reasoning="Let me see"),
        tool_call("TaskCreate", {"subject": "Write tests", "description": "d"}),
        text("Planned"),
        error(400, "scripted bad request"),
        text("The summary of it all"),
    )
    done = run_program(CALLBACKS, cwd=project, server=model_server, env=QUIET)
    assert done.returncode == 0, done.stderr
    log = [
        tuple(x) if not isinstance(x[1], list) else (x[0], x[1]) for x in json.loads(done.stdout)
    ]
    assert ("reasoning", "Let me ", "streaming") in log or ("reasoning", "Let ", "streaming") in log
    assert ("tokens", True) in log
    assert ("user (async)", "think") in log
    assert ("tasks", [["Write tests", "pending"]]) in log
    assert ("error", True) in log
    assert log.index(("compacting", True)) < log.index(("compacting", False))
    assert ("compact", True) not in log
    compact = [x for x in log if x[0] == "compact"]
    assert len(compact) == 1 and "The summary of it all" in compact[0][1]
    assert ("session", True) in log  # compaction moved the conversation to a new session
    models = [r.body["model"] for r in model_server.requests]
    assert models[-1] == "fast" and set(models[:-1]) == {"test-model"}  # the summary: fast_model


PERMISSIONS = """
import asyncio
from wave_tui import Agent, ToolResult

asked = []


def old_style(tool_name, input):
    asked.append(tool_name)
    if tool_name == "Write":
        return {"allowed": True}
    if tool_name == "Edit":
        raise RuntimeError("my callback broke")
    return {"allowed": False}


async def main() -> None:
    async with await Agent.create(can_use_tool=old_style, disallowed_tools=["Bash(curl *)"]) as a:
        async for event in a.stream("go"):
            if isinstance(event, ToolResult):
                print(event.name, event.is_error, event.content.splitlines()[0][:60])
    print("asked:", asked)
    async with await Agent.create(permission_mode="acceptEdits") as b:
        async for event in b.stream("again"):
            if isinstance(event, ToolResult):
                print(event.name, event.is_error)
    async with await Agent.create() as c:  # no can_use_tool: refused, as in wave -p
        async for event in c.stream("once more"):
            if isinstance(event, ToolResult):
                print(event.name, event.is_error, "refused" in event.content)


asyncio.run(main())
"""


@pytest.mark.req("SD6")
def test_can_use_tool_forms_modes_and_rules(project: Path, model_server: ModelServer) -> None:
    (project / "e.txt").write_text("old\n")
    model_server.enqueue(
        tool_calls(
            [
                ("Write", {"file_path": "w.txt", "content": "w"}),
                ("Bash", {"command": "touch x"}),
                ("Bash", {"command": "curl http://127.0.0.1:1"}),
            ]
        ),
        tool_call("Read", {"file_path": "e.txt"}),
        tool_call("Edit", {"file_path": "e.txt", "old_string": "old", "new_string": "new"}),
        text("one"),
        tool_call("Write", {"file_path": "a.txt", "content": "a"}),
        text("two"),
        tool_call("Write", {"file_path": "c.txt", "content": "c"}),
        text("three"),
    )
    done = run_program(PERMISSIONS, cwd=project, server=model_server, env=QUIET)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Write False")
    assert lines[1].startswith("Bash True Permission denied")
    assert lines[2].startswith("Bash True Permission denied: denied by the permissions.deny")
    assert lines[3].startswith("Read False")
    assert lines[4].startswith("Edit True")
    assert lines[5] == "asked: ['Write', 'Bash', 'Edit']"  # the deny rule asks nobody
    assert lines[6] == "Write False"  # acceptEdits
    assert lines[7] == "Write True True"
    assert done.stderr.count("can_use_tool raised RuntimeError: my callback broke") == 1
    assert (project / "e.txt").read_text() == "old\n"
    assert not (project / "c.txt").exists()


MCP_AND_MORE = """
import asyncio, sys
from wave_tui import Agent, ToolResult, get_latest_session


async def main() -> None:
    servers = {"demo": {"command": sys.executable, "args": [sys.argv[1]]}}
    async with await Agent.create(mcp_servers=servers, allowed_tools=["mcp__demo"],
                                  plugins=[{"path": "/tmp/reserved"}]) as agent:
        async for event in agent.stream("echo"):
            if isinstance(event, ToolResult):
                print("mcp:", event.name, event.content)
        first = agent.session_id
    async with await Agent.create(continue_last_session=True) as again:
        print("continued:", again.session_id == first, len(again.messages))
        stream = again.stream("long one")
        async for event in stream:
            break  # leaving the loop early aborts the turn
        await stream.aclose()
        print("after break:", again.messages[-1].role)
        print("image:", (await again.send_message("see", images=[sys.argv[2]])).status)


asyncio.run(main())
"""


@pytest.mark.req("SD6")
@pytest.mark.req("SD3")
def test_mcp_servers_plugins_continue_abort_and_images(
    project: Path, model_server: ModelServer
) -> None:
    image = project / "shot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    model_server.enqueue(
        tool_call("mcp__demo__echo", {"text": "ping"}),
        text("echoed"),
        text("a long answer that never ends", hold=threading.Event(), hold_at=3),
        text("I see it"),
    )
    source = MCP_AND_MORE.replace("sys.argv[1]", repr(str(DEMO_MCP))).replace(
        "sys.argv[2]", repr(str(image))
    )
    done = run_program(source, cwd=project, server=model_server, env=QUIET)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("mcp: mcp__demo__echo") and "ping" in lines[0]
    # the prompt, Exec's catalog of the MCP tools (a tail isMeta message), the call, its result
    # and the answer
    assert lines[1] == "continued: True 5"
    assert lines[2] == "after break: user"  # the interruption note: the turn was aborted
    assert lines[-1] == "image: completed"
    last_user = [m for m in model_server.requests[-1].body["messages"] if m["role"] == "user"][-1]
    assert "shot.png" in json.dumps(last_user)
    assert sys.executable  # the demo server ran under this interpreter


CONTRADICTIONS = """
import asyncio
from wave_tui import Agent, ToolResult

ANSWERS = {
    "a.txt": {"behavior": "deny", "allowed": True},
    "b.txt": {"behavior": "allow", "allowed": False},
    "c.txt": {"behavior": "allow", "allowed": "yes"},
    "d.txt": {"behavior": "allow", "allowed": True},
}


def answer(tool_name, input):
    return ANSWERS[input["file_path"]]


async def main() -> None:
    async with await Agent.create(can_use_tool=answer) as agent:
        async for event in agent.stream("go"):
            if isinstance(event, ToolResult):
                print(event.is_error)


asyncio.run(main())
"""


@pytest.mark.req("HR10")
def test_an_answer_that_contradicts_itself_denies(project: Path, model_server: ModelServer) -> None:
    names = ["a.txt", "b.txt", "c.txt", "d.txt"]
    model_server.enqueue(
        *(tool_call("Write", {"file_path": n, "content": n}) for n in names), text("done")
    )
    done = run_program(CONTRADICTIONS, cwd=project, server=model_server, env=QUIET)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True", "True", "True", "False"]
    assert [n for n in names if (project / n).exists()] == ["d.txt"]
