"""The task tools: TaskCreate, TaskGet, TaskUpdate, TaskList (TK1)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Annotated, Generic, TypeVar

from wave_tui.tools.arguments import Arg, NoArgs, TypedTool, tool_arguments
from wave_tui.tools.base import Tool, ToolContext, ToolError, ToolResult
from wave_tui.tools.tasks.store import (
    Task,
    TaskNotFound,
    TaskPatch,
    TaskStatus,
    TaskStore,
)

A = TypeVar("A")

SHORT_ID_LENGTH = 8  # a session's list shown by the start of its uuid, as git shows commits

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


# Models send task ids as numbers as well as strings, and one id where a list is asked for.
def _id_list(key: str, value: object) -> list[str]:
    if isinstance(value, str | int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not all(
        isinstance(x, str | int) and not isinstance(x, bool) for x in value
    ):
        raise ToolError(f"Parameter `{key}` must be a list of task ids.")
    return [str(x) for x in value]


def _task_id(key: str, value: object) -> object:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else value


TaskId = Annotated[str, Arg("The task id.", name="taskId", normalize=_task_id)]


@tool_arguments
class TaskCreateArgs:
    subject: Annotated[str, Arg("Short imperative title.")]
    # The schema asks for it; without one the task has no description.
    description: Annotated[str, Arg("What to do, in detail.", schema_required=True)] = ""
    active_form: Annotated[str, Arg("Shown while in progress.", name="activeForm")] = ""


@tool_arguments
class TaskGetArgs:
    task_id: TaskId


@tool_arguments
class TaskUpdateArgs:
    task_id: TaskId
    status: TaskStatus | None = None
    subject: str | None = None
    description: str | None = None
    active_form: Annotated[str | None, Arg(name="activeForm")] = None
    add_blocks: Annotated[tuple[str, ...], Arg(name="addBlocks", normalize=_id_list)] = ()
    add_blocked_by: Annotated[tuple[str, ...], Arg(name="addBlockedBy", normalize=_id_list)] = ()


def task_list_label(list_id: str, session_id: str | None = None) -> str:
    """A task list as people name it: the session's own list by the session's short id (the
    list's id is the uuid of the session it began in; `session_id`, when given, is the one the
    user is in now), a shared one (`WAVE_TASK_LIST_ID`) by its name."""
    try:
        uuid.UUID(list_id)
    except ValueError:
        return f'Task list "{list_id}"'
    return f"Task list of this session ({(session_id or list_id)[:SHORT_ID_LENGTH]})"


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


class _TaskTool(TypedTool[A], Generic[A]):
    read_only = False  # they change the task list, never the project

    def __init__(self, store: TaskStore) -> None:
        self.store = store

    async def call(self, args: A, ctx: ToolContext) -> ToolResult:
        try:
            return await self._act(args)
        except TaskNotFound as exc:
            raise ToolError(f"Task #{exc.args[0]} not found.") from exc

    async def _act(self, args: A) -> ToolResult:
        raise NotImplementedError


class TaskCreateTool(_TaskTool[TaskCreateArgs]):
    name = "TaskCreate"
    description = _CREATE_DESCRIPTION
    arguments = TaskCreateArgs

    async def _act(self, args: TaskCreateArgs) -> ToolResult:
        subject = args.subject.strip()
        if not subject:
            raise ToolError("subject must not be empty.")
        task = await self.store.create(subject, args.description, args.active_form)
        return ToolResult(
            content=f"Task #{task.id} created: {task.subject}",
            summary=f"Task #{task.id}: {task.subject}",
        )


class TaskGetTool(_TaskTool[TaskGetArgs]):
    name = "TaskGet"
    description = _GET_DESCRIPTION
    read_only = True
    arguments = TaskGetArgs

    async def _act(self, args: TaskGetArgs) -> ToolResult:
        task = await self.store.get(args.task_id)
        return ToolResult(content=format_task(task), summary=f"Task #{task.id}")


class TaskUpdateTool(_TaskTool[TaskUpdateArgs]):
    name = "TaskUpdate"
    description = _UPDATE_DESCRIPTION
    arguments = TaskUpdateArgs

    async def _act(self, args: TaskUpdateArgs) -> ToolResult:
        patch = TaskPatch(
            status=args.status,
            subject=args.subject,
            description=args.description,
            active_form=args.active_form,
            add_blocks=args.add_blocks,
            add_blocked_by=args.add_blocked_by,
        )
        task = await self.store.update(args.task_id, patch)
        return ToolResult(
            content=f"Updated {format_task_line(task)}", summary=f"Task #{task.id}: {task.status}"
        )


class TaskListTool(_TaskTool[NoArgs]):
    name = "TaskList"
    description = _LIST_DESCRIPTION
    read_only = True
    arguments = NoArgs

    async def _act(self, args: NoArgs) -> ToolResult:
        tasks = await self.store.all_tasks()
        return ToolResult(content=format_task_list(tasks), summary=f"{len(tasks)} tasks")


# req: TK1
def task_tools(store: TaskStore) -> list[Tool]:
    return [TaskCreateTool(store), TaskGetTool(store), TaskUpdateTool(store), TaskListTool(store)]
