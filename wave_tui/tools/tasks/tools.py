"""The task tools: TaskCreate, TaskGet, TaskUpdate, TaskList (TK1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wave_tui.tools.base import BaseTool, Tool, ToolContext, ToolError, ToolResult, arg_str
from wave_tui.tools.tasks.store import (
    TASK_STATUSES,
    Task,
    TaskNotFound,
    TaskPatch,
    TaskStore,
)

TASK_TOOL_NAMES = frozenset({"TaskCreate", "TaskGet", "TaskUpdate", "TaskList"})

_CREATE_DESCRIPTION = """\
Create a task in this session's task list to track a step of multi-step work.
Use tasks for work with three or more steps, or when the user gives several things to do; skip \
them for a single trivial step. Mark a task in_progress (TaskUpdate) before you start it and \
completed as soon as it is done.
- subject: a short imperative title ("Run the tests").
- description: what has to be done and how you will know it is done.
- activeForm: the present-continuous form shown while it runs ("Running the tests")."""

_GET_DESCRIPTION = "Get one task of the task list with its full description and dependencies."

_UPDATE_DESCRIPTION = """\
Update a task: status (pending → in_progress → completed, or deleted), subject, description, \
activeForm, and dependencies (addBlocks: tasks that cannot start until this one is done; \
addBlockedBy: tasks that must be done before this one). Keep exactly one task in_progress at a \
time while working."""

_LIST_DESCRIPTION = "List every task of the task list: id, status, subject, and what blocks it."


def _id_list(args: dict[str, Any], key: str) -> tuple[str, ...]:
    value = args.get(key)
    if value is None:
        return ()
    if isinstance(value, str | int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not all(
        isinstance(x, str | int) and not isinstance(x, bool) for x in value
    ):
        raise ToolError(f"Parameter `{key}` must be a list of task ids.")
    return tuple(str(x) for x in value)


def _task_id(args: dict[str, Any]) -> str:
    value = args.get("taskId")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    text = arg_str(args, "taskId")
    assert text is not None
    return text.strip()


def format_task_line(task: Task) -> str:
    line = f"#{task.id} [{task.status}] {task.subject}"
    if task.blocked_by:
        line += f" (blocked by {', '.join('#' + b for b in task.blocked_by)})"
    return line


def format_task(task: Task) -> str:
    lines = [format_task_line(task)]
    if task.description:
        lines.append(f"Description: {task.description}")
    if task.active_form:
        lines.append(f"Active form: {task.active_form}")
    if task.blocks:
        lines.append(f"Blocks: {', '.join('#' + b for b in task.blocks)}")
    return "\n".join(lines)


def format_task_list(tasks: Sequence[Task]) -> str:
    if not tasks:
        return "No tasks."
    return "\n".join(format_task_line(t) for t in tasks)


class _TaskTool(BaseTool):
    read_only = False  # they change the task list, never the project

    def __init__(self, store: TaskStore) -> None:
        self.store = store

    async def _run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            return await self._act(args)
        except TaskNotFound as exc:
            raise ToolError(f"Task #{exc.args[0]} not found.") from exc

    async def _act(self, args: dict[str, Any]) -> ToolResult:
        raise NotImplementedError


class TaskCreateTool(_TaskTool):
    name = "TaskCreate"
    description = _CREATE_DESCRIPTION
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "description": "Short imperative title."},
            "description": {"type": "string", "description": "What to do, in detail."},
            "activeForm": {"type": "string", "description": "Shown while in progress."},
        },
        "required": ["subject", "description"],
        "additionalProperties": False,
    }

    async def _act(self, args: dict[str, Any]) -> ToolResult:
        subject = (arg_str(args, "subject") or "").strip()
        if not subject:
            raise ToolError("subject must not be empty.")
        description = arg_str(args, "description", required=False) or ""
        active = arg_str(args, "activeForm", required=False) or ""
        task = await self.store.create(subject, description, active)
        return ToolResult(
            content=f"Task #{task.id} created: {task.subject}",
            summary=f"Task #{task.id}: {task.subject}",
        )


class TaskGetTool(_TaskTool):
    name = "TaskGet"
    description = _GET_DESCRIPTION
    read_only = True
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"taskId": {"type": "string", "description": "The task id."}},
        "required": ["taskId"],
        "additionalProperties": False,
    }

    async def _act(self, args: dict[str, Any]) -> ToolResult:
        task = await self.store.get(_task_id(args))
        return ToolResult(content=format_task(task), summary=f"Task #{task.id}")


class TaskUpdateTool(_TaskTool):
    name = "TaskUpdate"
    description = _UPDATE_DESCRIPTION
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "taskId": {"type": "string", "description": "The task id."},
            "status": {"type": "string", "enum": list(TASK_STATUSES)},
            "subject": {"type": "string"},
            "description": {"type": "string"},
            "activeForm": {"type": "string"},
            "addBlocks": {"type": "array", "items": {"type": "string"}},
            "addBlockedBy": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["taskId"],
        "additionalProperties": False,
    }

    async def _act(self, args: dict[str, Any]) -> ToolResult:
        task_id = _task_id(args)
        status = arg_str(args, "status", required=False)
        if status is not None and status not in TASK_STATUSES:
            raise ToolError(f"status must be one of {', '.join(TASK_STATUSES)}; got {status!r}.")
        patch = TaskPatch(
            status=status,
            subject=arg_str(args, "subject", required=False),
            description=arg_str(args, "description", required=False),
            active_form=arg_str(args, "activeForm", required=False),
            add_blocks=_id_list(args, "addBlocks"),
            add_blocked_by=_id_list(args, "addBlockedBy"),
        )
        task = await self.store.update(task_id, patch)
        return ToolResult(
            content=f"Updated {format_task_line(task)}", summary=f"Task #{task.id}: {task.status}"
        )


class TaskListTool(_TaskTool):
    name = "TaskList"
    description = _LIST_DESCRIPTION
    read_only = True
    parameters: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

    async def _act(self, args: dict[str, Any]) -> ToolResult:
        tasks = await self.store.all_tasks()
        return ToolResult(content=format_task_list(tasks), summary=f"{len(tasks)} tasks")


# req: TK1
def task_tools(store: TaskStore) -> list[Tool]:
    return [TaskCreateTool(store), TaskGetTool(store), TaskUpdateTool(store), TaskListTool(store)]


class TaskToolProvider:
    """A `ToolProvider` offering the four task tools over one store."""

    def __init__(self, store: TaskStore) -> None:
        self.store = store
        self._tools = task_tools(store)

    def tools(self) -> Sequence[Tool]:
        return self._tools
