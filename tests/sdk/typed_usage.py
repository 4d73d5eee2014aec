"""A program that uses every public name of the SDK with its types, for `mypy --strict`
(`test_typed_usage.py`): a wrong signature or a missing annotation in the SDK fails there.
It is type-checked only, never run."""

from __future__ import annotations

from pathlib import Path

from wave_tui import (
    AGENT_TOOL_NAME,
    ASK_USER_QUESTION_TOOL_NAME,
    BASH_TOOL_NAME,
    CALLBACK_NAMES,
    CRON_CREATE_TOOL_NAME,
    CRON_DELETE_TOOL_NAME,
    CRON_LIST_TOOL_NAME,
    EDIT_TOOL_NAME,
    ENTER_PLAN_MODE_TOOL_NAME,
    ENTER_WORKTREE_TOOL_NAME,
    EXIT_PLAN_MODE_TOOL_NAME,
    EXIT_WORKTREE_TOOL_NAME,
    GLOB_TOOL_NAME,
    GREP_TOOL_NAME,
    LSP_TOOL_NAME,
    OPTION_NAMES,
    READ_TOOL_NAME,
    SKILL_TOOL_NAME,
    TASK_CREATE_TOOL_NAME,
    TASK_GET_TOOL_NAME,
    TASK_LIST_TOOL_NAME,
    TASK_STOP_TOOL_NAME,
    TASK_UPDATE_TOOL_NAME,
    WEB_FETCH_TOOL_NAME,
    WORKFLOW_TOOL_NAME,
    WRITE_TOOL_NAME,
    Agent,
    AgentDestroyed,
    BackgroundOutput,
    BackgroundTaskInfo,
    ContentUpdate,
    ErrorEvent,
    ForegroundTask,
    FunctionTool,
    McpServerStatus,
    MemoryRule,
    Message,
    PermissionCheck,
    PromptHistoryManager,
    QueuedMessage,
    ReasoningChunk,
    SessionData,
    SessionMetadata,
    SlashCommand,
    StreamEvent,
    TextChunk,
    ToolBlockUpdate,
    ToolProgressUpdate,
    ToolResult,
    ToolUse,
    TurnEnd,
    Usage,
    WorkflowRunInfo,
    __version__,
    delete_session,
    file_search,
    get_default_remote_branch,
    get_git_common_dir,
    get_git_main_repo_root,
    get_git_repo_root,
    get_latest_session,
    get_session_file_path,
    has_new_commits,
    has_uncommitted_changes,
    is_git_repository,
    list_sessions,
    load_session,
    resolve_git_dir,
    tool,
)

TOOL_NAMES: list[str] = [
    AGENT_TOOL_NAME, ASK_USER_QUESTION_TOOL_NAME, BASH_TOOL_NAME, CRON_CREATE_TOOL_NAME,
    CRON_DELETE_TOOL_NAME, CRON_LIST_TOOL_NAME, EDIT_TOOL_NAME, ENTER_PLAN_MODE_TOOL_NAME,
    ENTER_WORKTREE_TOOL_NAME, EXIT_PLAN_MODE_TOOL_NAME, EXIT_WORKTREE_TOOL_NAME, GLOB_TOOL_NAME,
    GREP_TOOL_NAME, LSP_TOOL_NAME, READ_TOOL_NAME, SKILL_TOOL_NAME, TASK_CREATE_TOOL_NAME,
    TASK_GET_TOOL_NAME, TASK_LIST_TOOL_NAME, TASK_STOP_TOOL_NAME, TASK_UPDATE_TOOL_NAME,
    WEB_FETCH_TOOL_NAME, WORKFLOW_TOOL_NAME, WRITE_TOOL_NAME,
]  # fmt: skip
NAMES: tuple[str, ...] = (*OPTION_NAMES, *CALLBACK_NAMES, __version__)


@tool
def lookup(word: str) -> str:
    """Look a word up."""
    return word


def on_content(update: ContentUpdate) -> None:
    print(update.message_id, update.chunk, update.stage)


def on_tool(update: ToolBlockUpdate) -> None:
    print(update.id, update.name, update.parameters, update.stage, update.result, update.is_error)


def on_usages(usages: list[Usage]) -> None:
    print(sum(u.total_tokens for u in usages))


def on_queue(queued: list[QueuedMessage]) -> None:
    print([(m.id, m.content, m.images, m.type) for m in queued])


def on_background(tasks: list[BackgroundTaskInfo]) -> None:
    print([(t.id, t.kind, t.label, t.command, t.status, t.exit_code, t.output_file) for t in tasks])


def on_mcp(servers: list[McpServerStatus]) -> None:
    print([(s.name, s.kind, s.status, s.tools, s.error, s.instructions) for s in servers])


def describe(event: StreamEvent) -> str:
    if isinstance(event, TextChunk | ReasoningChunk):
        return event.text
    if isinstance(event, ToolUse):
        return f"{event.id} {event.name} {event.input}"
    if isinstance(event, ToolProgressUpdate):
        return f"{event.id} {event.name} {event.text}"
    if isinstance(event, ToolResult):
        return f"{event.id} {event.name} {event.content} {event.is_error}"
    if isinstance(event, ErrorEvent):
        return event.message
    return f"{event.status} {event.text} {event.error}"


async def ping(args: str) -> str:
    return f"pong {args}"


async def main(workdir: Path) -> None:
    checked: FunctionTool = lookup
    agent = await Agent.create(
        workdir=workdir,
        custom_tools=[checked],
        callbacks={
            "on_assistant_content_updated": on_content,
            "on_tool_block_updated": on_tool,
            "on_usages_change": on_usages,
            "on_queued_messages_change": on_queue,
            "on_background_tasks_change": on_background,
            "on_mcp_servers_change": on_mcp,
        },
    )
    async with agent:
        # The conversation and the queue.
        end: TurnEnd = await agent.send_message("hi", images=[workdir / "shot.png"])
        print(end.status, end.text, end.error)
        async for event in agent.stream("again"):
            print(describe(event))
        print((await agent.bang("ls")).status)
        queued: list[QueuedMessage] = agent.queued_messages
        removed: bool = agent.remove_queued_message(0) or agent.remove_queued_message_by_id("q1")
        updated: bool = agent.update_queued_message_by_id(
            "q2", content="edited", images=[], type="message"
        )
        recalled: QueuedMessage | None = agent.recall_queued_message()
        print(queued, removed, updated, recalled)
        agent.abort()
        agent.abort_message()
        stopped: list[bool] = [
            agent.abort_ai_message(),
            agent.abort_bash_command(),
            agent.abort_slash_command(),
        ]
        print(stopped, await agent.compact("focus"))
        await agent.truncate_history(0)
        await agent.restore_session(agent.session_id)
        async with await Agent.attach("d-1234", workdir=Path("."), can_use_tool=None) as remote:
            ended: TurnEnd = await remote.send_message("hi")
            print(remote.session_id, remote.messages, remote.is_loading, ended)
            remote.abort()
            await remote.detach()
        await agent.clear_messages()

        # State.
        messages: list[Message] = agent.messages + agent.get_full_message_thread()
        usages: list[Usage] = agent.usages
        paths: list[Path] = [
            agent.workdir,
            agent.working_directory,
            agent.session_file_path,
            agent.get_plan_file_path(),
        ]
        flags: list[bool] = [
            agent.is_loading,
            agent.is_compacting,
            agent.is_command_running,
            agent.has_running_background_work,
        ]
        texts: list[str] = [
            agent.session_id,
            agent.project_memory,
            agent.user_memory,
            agent.task_list_id,
            await agent.get_combined_memory(),
        ]
        print(messages, usages, paths, flags, texts, agent.latest_total_tokens + 1)
        agent.set_model("other")
        agent.set_workdir(workdir)

        # Permissions.
        agent.set_permission_mode("acceptEdits")
        print(agent.get_permission_mode() == "acceptEdits")
        check: PermissionCheck = await agent.check_permission(BASH_TOOL_NAME, {"command": "ls"})
        print(check.behavior, check.reason)
        await agent.add_permission_rule("Bash(npm *)")
        available: list[str] = agent.get_available_tool_names()
        print([n for n in TOOL_NAMES if n in available])

        # MCP servers, rules, slash commands.
        servers: list[McpServerStatus] = agent.get_mcp_servers()
        print(servers, await agent.connect_mcp_server("x"), await agent.disconnect_mcp_server("x"))
        rules: list[MemoryRule] = agent.get_allowed_rules() + agent.get_user_allowed_rules()
        print([(r.id, r.path, r.scope, r.body, r.paths, r.priority, r.activated_by) for r in rules])
        agent.register_slash_command("ping", "Answer pong", ping, argument_hint="[text]")
        commands: list[SlashCommand] = agent.get_slash_commands()
        commands += await agent.reload_custom_commands()
        commands += agent.get_custom_commands()
        one: SlashCommand | None = agent.get_custom_command("greet")
        print(commands, one, agent.has_slash_command("/ping"))
        print(await agent.trigger_worktree_remove_hook(workdir / "wt"))

        # Background work.
        tasks: list[BackgroundTaskInfo] = agent.background_tasks
        output: BackgroundOutput | None = await agent.get_background_shell_output("b1", 0, 10)
        task_output = await agent.get_background_task_output("b1", offset=0, limit=None)
        if output is not None and task_output is not None:
            print(output.content, output.total_lines, output.status, task_output.content)
        print(
            tasks, await agent.kill_background_shell("b1"), await agent.stop_background_task("b1")
        )

        # Workflow runs.
        runs: list[WorkflowRunInfo] = await agent.get_workflow_runs()
        print(runs, agent.get_workflow_run("w1"), await agent.stop_workflow_run("w1"))

        # Foreground work a program can move to the background.
        async def to_background() -> None:
            print("moved")

        agent.register_foreground_task(ForegroundTask("job", to_background, "my job"))
        moved: str | None = await agent.background_current_task()
        print(moved, agent.unregister_foreground_task("job"))

    await agent.destroy()  # `async with` did already: a second call does nothing

    # Git, files and the prompt history.
    roots: list[Path | None] = [
        await get_git_repo_root(workdir),
        await get_git_main_repo_root(workdir),
        await get_git_common_dir(workdir),
        await resolve_git_dir(workdir),
    ]
    branch: str | None = await get_default_remote_branch(workdir, remote="origin")
    states: list[bool] = [
        await is_git_repository(workdir),
        await has_uncommitted_changes(workdir),
        await has_new_commits(workdir, base="main"),
    ]
    found: list[Path] = await file_search(workdir, "**/*.py", content="def ", limit=10)
    history = PromptHistoryManager(workdir)
    await history.add("a prompt")
    entries: list[str] = await history.entries()
    print(roots, branch, states, found, entries)

    # The sessions of the project.
    sessions: list[SessionMetadata] = await list_sessions(workdir)
    latest: SessionMetadata | None = await get_latest_session(workdir)
    data: SessionData = await load_session(sessions[0].id, workdir)
    stored: Path = get_session_file_path(sessions[0].id, workdir)
    print(latest, data.messages, stored)
    await delete_session(sessions[0].id, workdir)
    try:
        await agent.send_message("after destroy")
    except AgentDestroyed as exc:
        print(exc)
