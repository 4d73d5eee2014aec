"""The `Agent`'s properties and methods beside the conversation (004 §2, §5): in-process
against the scripted server, each checked through what it changes (a request, a file, a
command's working directory)."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import wave_tui
from tests.model_server import ModelServer, text, tool_call
from tests.sdk.test_message_queue import until
from wave_tui import (
    Agent,
    McpServerStatus,
    MemoryRule,
    PermissionCheck,
    SlashCommand,
    get_session_file_path,
    tool,
)


@pytest.fixture(autouse=True)
def no_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


async def make_agent(project: Path, server: ModelServer, **options: Any) -> Agent:
    return await Agent.create(
        workdir=project,
        base_url=server.base_url,
        api_key="test-key",
        model="test-model",
        **options,
    )


# 004 §5's constants and their values.
CONSTANTS = {
    "BASH_TOOL_NAME": "Bash", "READ_TOOL_NAME": "Read", "WRITE_TOOL_NAME": "Write",
    "EDIT_TOOL_NAME": "Edit", "GLOB_TOOL_NAME": "Glob", "GREP_TOOL_NAME": "Grep",
    "LSP_TOOL_NAME": "LSP", "WEB_FETCH_TOOL_NAME": "WebFetch",
    "ASK_USER_QUESTION_TOOL_NAME": "AskUserQuestion", "TASK_CREATE_TOOL_NAME": "TaskCreate",
    "TASK_GET_TOOL_NAME": "TaskGet", "TASK_UPDATE_TOOL_NAME": "TaskUpdate",
    "TASK_LIST_TOOL_NAME": "TaskList", "TASK_STOP_TOOL_NAME": "TaskStop",
    "CRON_CREATE_TOOL_NAME": "CronCreate", "CRON_DELETE_TOOL_NAME": "CronDelete",
    "CRON_LIST_TOOL_NAME": "CronList", "ENTER_WORKTREE_TOOL_NAME": "EnterWorktree",
    "EXIT_WORKTREE_TOOL_NAME": "ExitWorktree", "ENTER_PLAN_MODE_TOOL_NAME": "EnterPlanMode",
    "EXIT_PLAN_MODE_TOOL_NAME": "ExitPlanMode", "SKILL_TOOL_NAME": "Skill",
    "AGENT_TOOL_NAME": "Agent", "WORKFLOW_TOOL_NAME": "Workflow",
}  # fmt: skip


@pytest.mark.req("SX6")
def test_the_tool_name_constants_are_public() -> None:
    for name, value in CONSTANTS.items():
        assert name in wave_tui.__all__
        assert getattr(wave_tui, name) == value


@pytest.mark.req("SX6")
async def test_the_permission_api_decides_real_calls(
    project: Path, model_server: ModelServer
) -> None:
    @tool
    def lookup(word: str) -> str:
        """Looks a word up."""
        return word

    modes: list[str] = []
    agent = await make_agent(
        project,
        model_server,
        custom_tools=[lookup],
        callbacks={"on_permission_mode_change": modes.append},
    )
    try:
        names = agent.get_available_tool_names()
        assert {"Bash", "Read", "Write", "Edit", "lookup"} <= set(names)
        assert agent.get_permission_mode() == "default"

        touch = {"command": "touch made.txt"}
        assert (await agent.check_permission("Bash", touch)).behavior == "ask"
        # Asked with no can_use_tool: refused, nothing made.
        model_server.enqueue(tool_call("Bash", touch), text("refused"))
        await agent.send_message("touch it")
        assert not (project / "made.txt").exists()

        await agent.add_permission_rule("Bash(touch *)")
        check = await agent.check_permission("Bash", touch)
        assert isinstance(check, PermissionCheck) and check.behavior == "allow"
        assert "Bash(touch *)" in check.reason
        model_server.enqueue(tool_call("Bash", touch), text("made"))
        await agent.send_message("touch it again")
        assert (project / "made.txt").exists(), [
            (r.body["messages"][-1], r.reply) for r in model_server.requests
        ]

        write = {"file_path": str(project / "a.txt"), "content": "x"}
        assert (await agent.check_permission("Write", write)).behavior == "ask"
        agent.set_permission_mode("acceptEdits")
        assert agent.get_permission_mode() == "acceptEdits"
        assert (await agent.check_permission("Write", write)).behavior == "allow"
        agent.set_permission_mode("plan")
        assert (await agent.check_permission("Write", write)).behavior == "deny"
        assert modes == ["acceptEdits", "plan"]

        with pytest.raises(ValueError, match="not a permission rule"):
            await agent.add_permission_rule("Bash(")
        with pytest.raises(ValueError, match="mode must be one of"):
            agent.set_permission_mode("yolo")  # type: ignore[arg-type]
    finally:
        await agent.destroy()


@pytest.mark.req("SX3")
async def test_the_properties_tell_the_session_state(
    project: Path, model_server: ModelServer, isolated_home: Path
) -> None:
    (project / "AGENTS.md").write_text("Project rules.\n")
    (isolated_home / ".wave").mkdir(exist_ok=True)
    (isolated_home / ".wave" / "AGENTS.md").write_text("User rules.\n")
    hold = threading.Event()
    model_server.enqueue(
        text("first answer", hold=hold),
        tool_call("TaskCreate", {"subject": "Write tests", "description": "d"}),
        text("planned"),
    )
    agent = await make_agent(project, model_server)
    try:
        assert agent.working_directory == project
        assert agent.project_memory == "Project rules.\n"
        assert agent.user_memory == "User rules.\n"
        assert agent.latest_total_tokens == 0
        assert not agent.is_loading and not agent.is_compacting
        assert not agent.is_command_running and not agent.has_running_background_work
        assert agent.queued_messages == []

        first = asyncio.ensure_future(agent.send_message("first"))
        await until(lambda: len(model_server.requests) == 1)
        assert agent.is_loading
        hold.set()
        await first
        assert not agent.is_loading
        assert agent.latest_total_tokens == agent.usages[-1].total_tokens > 0
        assert agent.session_file_path.is_file()
        assert agent.session_file_path.stem == agent.session_id
        assert get_session_file_path(agent.session_id, project) == agent.session_file_path
        assert '"first answer"' in agent.session_file_path.read_text()

        await agent.send_message("plan")
        task_file = agent._agent().paths.task_list_dir(agent.task_list_id) / "tasks.json"
        assert agent.task_list_id and "Write tests" in task_file.read_text()
    finally:
        hold.set()
        await agent.destroy()


@pytest.mark.req("SX4")
async def test_the_methods_change_model_workdir_and_conversation(
    project: Path, model_server: ModelServer
) -> None:
    sub = project / "sub"
    sub.mkdir()
    hook_log = project.parent / "hooks.log"
    script = project.parent / "hook.sh"
    script.write_text(
        "#!/bin/sh\n"
        "python3 -c 'import json,sys; d=json.load(sys.stdin); "
        'print(d["hook_event_name"] + ":" + (d.get("source") or d.get("reason") or ""))\' '
        f">> {hook_log}\n"
    )
    script.chmod(0o755)
    session_hooks = {
        event: [{"hooks": [{"type": "command", "command": str(script)}]}]
        for event in ("SessionStart", "SessionEnd")
    }
    changes: list[tuple[str, str]] = []
    running: list[bool] = []
    agent = await make_agent(
        project,
        model_server,
        fast_model="fast",
        hooks=session_hooks,
        callbacks={
            "on_model_change": lambda m: changes.append(("model", m)),
            "on_workdir_change": lambda d: changes.append(("workdir", d)),
            "on_command_running_change": running.append,
        },
    )
    try:
        agent.set_model("other-model")
        await agent.send_message("hi")
        assert model_server.requests[-1].body["model"] == "other-model"

        agent.set_workdir(sub)
        assert agent.working_directory == sub.resolve()
        result = await agent.bang("pwd")
        assert result.status == "completed"
        bang_output = [m.content for m in agent.messages if "pwd" in m.content]
        assert bang_output and str(sub.resolve()) in bang_output[-1]
        assert running == [True, False]
        assert len(model_server.requests) == 1  # `bang` asks no model
        with pytest.raises(ValueError, match="not a folder"):
            agent.set_workdir(project / "missing")
        assert changes == [("model", "other-model"), ("workdir", str(sub.resolve()))]

        # Abort what runs, by kind.
        assert not agent.abort_ai_message() and not agent.abort_bash_command()
        assert not agent.abort_slash_command()
        sleeping = asyncio.ensure_future(agent.bang("sleep 30"))
        await until(lambda: agent.is_command_running)
        assert not agent.abort_ai_message()  # a command runs, not the model
        assert agent.abort_bash_command()
        assert (await sleeping).status == "aborted"
        release = asyncio.Event()

        async def slow_command(args: str) -> str:
            await release.wait()
            return "never shown"

        agent.register_slash_command("slow", "Waits", slow_command)
        waiting = asyncio.ensure_future(agent.send_message("/slow"))
        await until(lambda: agent.is_command_running)
        assert not agent.abort_bash_command() and not agent.abort_ai_message()
        assert agent.abort_slash_command()
        assert (await waiting).status == "aborted"
        hold = threading.Event()
        model_server.enqueue(text("slow answer", hold=hold))
        talking = asyncio.ensure_future(agent.send_message("talk"))
        await until(lambda: len(model_server.requests) == 2)
        assert not agent.abort_bash_command()
        assert agent.abort_ai_message()
        hold.set()
        assert (await talking).status == "aborted"

        old = agent.session_id
        await agent.clear_messages()
        assert agent.messages == [] and agent.session_id != old
        model_server.enqueue(text("fresh"))
        await agent.send_message("again")
        assert hook_log.read_text().split() == [
            "SessionStart:startup",
            "SessionEnd:clear",
            "SessionStart:clear",
        ]
        # The full thread keeps what a compaction summarised away.
        model_server.enqueue(text("summary of it all"))
        assert await agent.compact()
        assert all(m.content != "again" for m in agent.messages)
        assert any(m.content == "again" for m in agent.get_full_message_thread())

    finally:
        await agent.destroy()


DEMO_MCP = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"


@pytest.mark.req("SX7")
async def test_mcp_servers_are_listed_disconnected_and_connected(
    project: Path, model_server: ModelServer
) -> None:
    servers = {"demo": {"command": sys.executable, "args": [str(DEMO_MCP)]}}
    states: list[list[str]] = []
    agent = await make_agent(
        project,
        model_server,
        mcp_servers=servers,
        callbacks={"on_mcp_servers_change": lambda ss: states.append([s.status for s in ss])},
    )
    try:
        (demo,) = agent.get_mcp_servers()
        assert isinstance(demo, McpServerStatus)
        assert (demo.name, demo.kind, demo.status) == ("demo", "stdio", "ready")
        assert "mcp__demo__echo" in demo.tools
        assert demo.instructions and "call echo" in demo.instructions
        assert "mcp__demo__echo" in agent.get_available_tool_names()

        stopped = await agent.disconnect_mcp_server("demo")
        assert stopped.status == "stopped" and stopped.tools == ()
        assert agent.get_mcp_servers()[0].status == "stopped"
        assert "mcp__demo__echo" not in agent.get_available_tool_names()

        assert states[-1] == ["stopped"]
        again = await agent.connect_mcp_server("demo")
        assert again.status == "ready" and states[-1] == ["ready"]
        assert "mcp__demo__echo" in agent.get_available_tool_names()
        with pytest.raises(ValueError, match="no MCP server named 'nope'"):
            await agent.connect_mcp_server("nope")
        with pytest.raises(ValueError, match="no MCP server named 'nope'"):
            await agent.disconnect_mcp_server("nope")
    finally:
        await agent.destroy()


@pytest.mark.req("SX10")
async def test_slash_commands_are_listed_registered_and_reloaded(
    project: Path, model_server: ModelServer, isolated_home: Path
) -> None:
    commands = project / ".wave" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text(
        "---\ndescription: Greet someone\n---\nSay hi to $ARGUMENTS\n"
    )
    agent = await make_agent(project, model_server)
    try:
        names = {c.name: c for c in agent.get_slash_commands()}
        assert names["compact"].source == "built-in"
        assert names["greet"].source == "custom"
        assert agent.has_slash_command("/greet") and agent.has_slash_command("compact")
        assert not agent.has_slash_command("nothing-here")
        greet = agent.get_custom_command("greet")
        assert isinstance(greet, SlashCommand) and greet.description == "Greet someone"
        assert [c.name for c in agent.get_custom_commands()] == ["greet"]

        (commands / "bye.md").write_text("Say bye\n")
        assert {c.name for c in await agent.reload_custom_commands()} == {"greet", "bye"}

        calls: list[str] = []

        async def ping(args: str) -> str:
            calls.append(args)
            return f"pong {args}"

        agent.register_slash_command("ping", "Answer pong", ping)
        assert SlashCommand("ping", "Answer pong", "", "sdk") in agent.get_slash_commands()
        result = await agent.send_message("/ping there")
        assert calls == ["there"] and "pong there" in result.text
        assert model_server.requests == []  # a command's output needs no model
        with pytest.raises(ValueError, match="built-in"):
            agent.register_slash_command("compact", "mine", ping)
        with pytest.raises(ValueError, match="one word"):
            agent.register_slash_command("two words", "x", ping)

        assert agent.get_plan_file_path() == (
            isolated_home / ".wave" / "plans" / f"{agent.session_id}.md"
        )
    finally:
        await agent.destroy()


@pytest.mark.req("SX8")
async def test_memory_and_the_rules_in_force(
    project: Path, model_server: ModelServer, isolated_home: Path
) -> None:
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.md").write_text("Use tabs.\n")
    (rules / "py.md").write_text('---\npaths: ["**/*.py"]\n---\nType every def.\n')
    (project / "a.py").write_text("x = 1\n")
    user_rules = isolated_home / ".wave" / "rules"
    user_rules.mkdir(parents=True)
    (user_rules / "me.md").write_text("Answer briefly.\n")
    (project / "AGENTS.md").write_text("Project rules.\n")
    (isolated_home / ".wave" / "AGENTS.md").write_text("User rules.\n")
    agent = await make_agent(project, model_server)
    try:
        assert [(r.id, r.body.strip()) for r in agent.get_allowed_rules()] == [
            ("style.md", "Use tabs.")
        ]
        (me,) = agent.get_user_allowed_rules()
        assert isinstance(me, MemoryRule)
        assert (me.id, me.scope, me.paths, me.activated_by) == ("me.md", "user", (), None)
        assert me.path == user_rules / "me.md"

        model_server.enqueue(tool_call("Read", {"file_path": str(project / "a.py")}), text("ok"))
        await agent.send_message("read a.py")
        by_id = {r.id: r for r in agent.get_allowed_rules()}
        assert set(by_id) == {"style.md", "py.md"}
        assert by_id["py.md"].paths == ("**/*.py",)
        assert by_id["py.md"].activated_by and "a.py" in by_id["py.md"].activated_by

        assert agent.project_memory == "Project rules.\n"
        assert agent.user_memory == "User rules.\n"
        assert await agent.get_combined_memory() == "User rules.\n\nProject rules."
    finally:
        await agent.destroy()


async def test_background_commands_are_read_and_killed(
    project: Path, model_server: ModelServer
) -> None:
    seen: list[list[tuple[str, str]]] = []
    agent = await make_agent(
        project,
        model_server,
        permission_mode="bypassPermissions",
        callbacks={
            "on_background_tasks_change": lambda ts: seen.append([(t.kind, t.status) for t in ts])
        },
    )
    try:
        command = "echo one; echo two; sleep 30"
        model_server.enqueue(
            tool_call("Bash", {"command": command, "run_in_background": True}), text("started")
        )
        await agent.send_message("run it in the background")
        (task,) = agent.background_tasks
        assert (task.kind, task.command, task.status) == ("bash", command, "running")
        assert agent.has_running_background_work

        async def lines() -> int:
            output = await agent.get_background_shell_output(task.id)
            return output.total_lines if output is not None else -1

        while await lines() < 2:
            await asyncio.sleep(0.01)
        second = await agent.get_background_shell_output(task.id, offset=1, limit=1)
        assert second is not None and (second.content, second.status) == ("two", "running")
        whole = await agent.get_background_task_output(task.id)
        assert whole is not None and whole.content == "one\ntwo"

        assert await agent.kill_background_shell(task.id)
        assert not await agent.kill_background_shell(task.id)  # no longer running
        assert not await agent.stop_background_task(task.id)
        assert agent.background_tasks[0].status == "killed"
        assert not agent.has_running_background_work
        assert await agent.get_background_shell_output("nope") is None
        assert seen[0] == [("bash", "running")] and seen[-1] == [("bash", "killed")]
    finally:
        await agent.destroy()
