"""One table of tools: what each may do, which argument names its subject, how it is shown.

Every place that asks "is this tool read-only", "does it write a path", "what is the key
argument of this call" reads this table; nothing else keeps a list of tool names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

from wave_tui.config.records import record

# never: runs without asking (read-only, or it only asks the user / changes the mode);
# children: no approval for the call itself, each call it makes is checked (Agent);
# ask: needs approval unless a rule or mode allows it.
Approval = Literal["never", "children", "ask"]

MCP_PREFIX = "mcp__"

# The built-in tools' names: code that treats one tool apart names it by these constants (each
# tool class sets its own `name` to the same text, below this layer).
READ = "Read"
GLOB = "Glob"
GREP = "Grep"
WRITE = "Write"
EDIT = "Edit"
BASH = "Bash"
BASH_OUTPUT = "BashOutput"
WEB_FETCH = "WebFetch"
WEB_SEARCH = "WebSearch"
SKILL = "Skill"
TASK = "Task"
TASK_CREATE = "TaskCreate"
TASK_GET = "TaskGet"
TASK_LIST = "TaskList"
TASK_UPDATE = "TaskUpdate"
TASK_OUTPUT = "TaskOutput"
TASK_STOP = "TaskStop"
ASK_USER_QUESTION = "AskUserQuestion"
ENTER_PLAN_MODE = "EnterPlanMode"
EXIT_PLAN_MODE = "ExitPlanMode"
AGENT = "Agent"
LSP = "LSP"
LIST_MCP_RESOURCES = "ListMcpResources"
# Not a tool the model calls: an MCP server asking for the model (`sampling/createMessage`),
# approved like a call; a rule `McpSampling(server)` allows one server.
MCP_SAMPLING = "McpSampling"
READ_MCP_RESOURCE = "ReadMcpResource"
ENTER_WORKTREE = "EnterWorktree"
EXIT_WORKTREE = "ExitWorktree"
CRON_CREATE = "CronCreate"
CRON_DELETE = "CronDelete"
CRON_LIST = "CronList"
EXEC = "Exec"
WORKFLOW = "Workflow"


@record
class ToolInfo:
    name: str
    read_only: bool  # can never change anything
    writes_paths: bool  # its `key_argument` is a file it creates or changes (Write, Edit)
    key_argument: str | None  # what rules match and the UI shows (`file_path`, `command`, ...)
    approval: Approval
    display: str  # verb for the UI and grant labels ("Read", "Run", ...)
    path_argument: bool = False  # `key_argument` is a path (rules match real paths)
    in_fork: bool = (
        False  # the extraction fork may call it (F5-F7; Bash/Write/Edit checked further)
    )


def _info(
    name: str,
    key: str | None,
    approval: Approval,
    display: str,
    *,
    read_only: bool = False,
    writes: bool = False,
    path: bool = False,
    fork: bool = False,
) -> ToolInfo:
    return ToolInfo(name, read_only, writes, key, approval, display, path, fork)


TOOLS: Mapping[str, ToolInfo] = {
    t.name: t
    for t in (
        _info(READ, "file_path", "never", "Read", read_only=True, path=True, fork=True),
        _info(GLOB, "pattern", "never", "Find files", read_only=True, fork=True),
        _info(GREP, "pattern", "never", "Search", read_only=True, fork=True),
        _info(WRITE, "file_path", "ask", "Write", writes=True, path=True, fork=True),
        _info(EDIT, "file_path", "ask", "Edit", writes=True, path=True, fork=True),
        _info(BASH, "command", "ask", "Run", fork=True),
        _info(BASH_OUTPUT, "bash_id", "never", "Read output", read_only=True),
        _info(WEB_FETCH, "url", "ask", "Fetch"),
        _info(WEB_SEARCH, "query", "ask", "Search the web"),
        _info(SKILL, "skill", "never", "Use skill", read_only=True),
        _info(TASK, "description", "never", "Task", read_only=True),
        _info(TASK_CREATE, "subject", "never", "Create task", read_only=True),
        _info(TASK_GET, "taskId", "never", "Get task", read_only=True),
        _info(TASK_LIST, None, "never", "List tasks", read_only=True),
        _info(TASK_UPDATE, "taskId", "never", "Update task", read_only=True),
        _info(TASK_OUTPUT, "task_id", "never", "Task output", read_only=True),
        _info(TASK_STOP, "task_id", "never", "Stop task", read_only=True),
        _info(ASK_USER_QUESTION, None, "never", "Ask", read_only=True),
        _info(ENTER_PLAN_MODE, None, "never", "Plan", read_only=True),
        _info(EXIT_PLAN_MODE, None, "never", "Leave plan mode", read_only=True),
        _info(AGENT, "description", "children", "Agent"),
        # Read-only like Grep: it runs wherever Read does; the extraction fork never gets it.
        _info(LSP, "filePath", "never", "Code intelligence", read_only=True),
        # Reading what a configured server publishes, like Read; the fork never gets them.
        _info(LIST_MCP_RESOURCES, "server", "never", "List MCP resources", read_only=True),
        _info(READ_MCP_RESOURCE, "uri", "never", "Read MCP resource", read_only=True),
        _info(MCP_SAMPLING, "server", "ask", "Let an MCP server use the model"),
        # A worktree is made by git under the project's `.wave/worktrees` (nothing of the
        # checkout changes); leaving may remove one and its changes: asked like a command.
        _info(ENTER_WORKTREE, "name", "never", "Enter worktree"),
        _info(EXIT_WORKTREE, "action", "ask", "Leave worktree"),
        # Scheduled prompts of this session: nothing runs until the session is idle, and each
        # prompt is a turn of its own whose tool calls are checked as always.
        _info(CRON_CREATE, "cron", "never", "Schedule", read_only=True),
        _info(CRON_DELETE, "id", "never", "Unschedule", read_only=True),
        _info(CRON_LIST, None, "never", "List schedules", read_only=True),
        # A script whose every nested MCP call goes down the pipeline as the leaf tool itself;
        # never with another tool at once (not in CONCURRENT_TOOLS), never in the fork.
        _info(EXEC, None, "children", "Run script"),
        # A workflow only starts subagents: each of their calls is checked as any subagent's.
        _info(WORKFLOW, "name", "children", "Run workflow"),
    )
}

_KEY_FALLBACK = ("file_path", "command", "pattern", "path", "url")


# Tools whose output lines start with a file's path (files, `path:line:text`, `path:count`):
# the app shortens those paths for display.
PATH_LISTING_TOOLS: frozenset[str] = frozenset({GLOB, GREP})


def tool_info(name: str) -> ToolInfo:
    """The table row for `name`; an unknown tool (e.g. `mcp__server__tool`) always asks (MC5)."""
    known = TOOLS.get(name)
    if known is not None:
        return known
    return ToolInfo(name, False, False, None, "ask", name)


def writes_paths(name: str) -> bool:
    return tool_info(name).writes_paths


def is_mcp_tool(name: str) -> bool:
    return name.startswith(MCP_PREFIX)


def key_argument(name: str, args: Mapping[str, Any]) -> str:
    """The one argument that says what a call is about ("" when none is a string)."""
    key = tool_info(name).key_argument
    keys = (key,) if key is not None else _KEY_FALLBACK
    for candidate in keys:
        value = args.get(candidate)
        if isinstance(value, str):
            return value
    return ""


class CallOnRow(Protocol):
    """A parsed tool call that carries its table row: what the policy, the rules and the
    extensions read, so none of them looks the tool up again."""

    @property
    def name(self) -> str: ...

    @property
    def args(self) -> Mapping[str, Any]: ...

    @property
    def row(self) -> ToolInfo: ...


@record
class ToolUse:
    """The plainest `CallOnRow`: a tool's name and arguments with the row looked up once."""

    name: str
    args: Mapping[str, Any]
    row: ToolInfo

    @classmethod
    def of(cls, name: str, args: Mapping[str, Any]) -> ToolUse:
        return cls(name, args, tool_info(name))
