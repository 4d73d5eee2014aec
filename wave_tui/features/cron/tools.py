"""`CronCreate`, `CronDelete`, `CronList`: the model's door to the session's scheduled prompts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from wave_tui.features.cron.schedule import ScheduleError
from wave_tui.permissions.tool_table import CRON_CREATE, CRON_DELETE, CRON_LIST
from wave_tui.tools.arguments import Arg, NoArgs, TypedTool, tool_arguments
from wave_tui.tools.base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from wave_tui.features.cron.scheduler import CronScheduler


@tool_arguments
class CronCreateArgs:
    cron: Annotated[
        str, Arg("5-field cron expression in local time: minute hour day month weekday.")
    ]
    prompt: Annotated[str, Arg("The prompt (or /command) to run each time it fires.")]
    recurring: Annotated[bool, Arg("Fire at every match (true) or only once (false).")] = True


@tool_arguments
class CronDeleteArgs:
    id: Annotated[str, Arg("The job id CronCreate returned.")]


class CronCreateTool(TypedTool[CronCreateArgs]):
    name = CRON_CREATE
    description = (
        "Schedule a prompt in this session with a 5-field cron expression (local time). It "
        "runs as a new turn when due and the session is idle. Jobs expire after 7 days; at most "
        "50. Returns the job id."
    )
    read_only = True
    arguments = CronCreateArgs

    def __init__(self, scheduler: CronScheduler) -> None:
        self.scheduler = scheduler

    async def call(self, args: CronCreateArgs, ctx: ToolContext) -> ToolResult:
        try:
            job = self.scheduler.create(args.cron, args.prompt, args.recurring)
        except ScheduleError as exc:
            return ToolResult(str(exc), is_error=True, summary="not scheduled")
        return ToolResult(f"Scheduled job {job.id}.\n{job.line()}", summary=f"scheduled {job.id}")


class CronDeleteTool(TypedTool[CronDeleteArgs]):
    name = CRON_DELETE
    description = "Delete a scheduled job of this session by its id."
    read_only = True
    arguments = CronDeleteArgs

    def __init__(self, scheduler: CronScheduler) -> None:
        self.scheduler = scheduler

    async def call(self, args: CronDeleteArgs, ctx: ToolContext) -> ToolResult:
        try:
            job = self.scheduler.delete(args.id)
        except ScheduleError as exc:
            return ToolResult(str(exc), is_error=True, summary="no such job")
        return ToolResult(f"Deleted job {job.id}.", summary=f"deleted {job.id}")


class CronListTool(TypedTool[NoArgs]):
    name = CRON_LIST
    description = "List this session's scheduled jobs with their next run."
    read_only = True
    arguments = NoArgs

    def __init__(self, scheduler: CronScheduler) -> None:
        self.scheduler = scheduler

    async def call(self, args: NoArgs, ctx: ToolContext) -> ToolResult:
        jobs = self.scheduler.listing()
        lines = [job.line() for job in jobs] or ["(no scheduled jobs)"]
        return ToolResult("\n".join(lines), summary=f"{len(jobs)} scheduled")


def cron_tools(scheduler: CronScheduler) -> list[Tool]:
    return [CronCreateTool(scheduler), CronDeleteTool(scheduler), CronListTool(scheduler)]
