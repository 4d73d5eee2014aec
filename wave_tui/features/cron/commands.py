"""`/loop [interval] PROMPT|/command`, `/loop list`, `/loop stop [ID…]`, and the scheduled
jobs in `/tasks`."""

from __future__ import annotations

from wave_tui.agent.commands import Command, CommandOutput, CommandRegistry, CommandResult
from wave_tui.features.cron.schedule import ScheduleError, parse_loop
from wave_tui.features.cron.scheduler import CronScheduler

# The first word of `/loop ARGS` that is a command of /loop itself, never the start of a prompt.
LIST_WORDS = frozenset({"list", "ls", "show", "status"})
STOP_WORDS = frozenset({"stop", "cancel", "delete", "remove", "rm", "kill", "end", "off", "clear"})
COMMAND_WORDS = LIST_WORDS | STOP_WORDS | {"help"}
USAGE = "usage: /loop [interval] PROMPT|/command · /loop list · /loop stop [ID…]"


def loop_command(scheduler: CronScheduler) -> Command:
    # req: CR2
    # req: FH4
    async def run(args: str) -> CommandResult:
        words = args.split()
        first = words[0].lower() if words else ""
        if first in LIST_WORDS and len(words) == 1:
            return _listing(scheduler)
        if first in STOP_WORDS:
            return _stop(scheduler, words[1:])
        if first == "help":
            return CommandOutput(USAGE)
        try:
            request = parse_loop(args)
            if request.prompt.lower() in COMMAND_WORDS:
                raise ScheduleError(f"{request.prompt!r} is a /loop command, not a prompt: {USAGE}")
            job = scheduler.create(request.cron, request.prompt, True, "loop")
        except ScheduleError as exc:
            return CommandOutput(f"/loop: {exc}", is_error=True)
        return CommandOutput(
            f"Every {request.every}: {job.prompt}\n{job.line()}\n"
            f"/loop stop {job.id} stops it (/loop stop: every loop); /loop list lists them."
        )

    return Command(
        "loop",
        "Run a prompt or /command again and again (every 10m unless told); list, stop",
        run,
        argument_hint="[interval] PROMPT | list | stop [ID]",
    )


def _listing(scheduler: CronScheduler) -> CommandResult:
    jobs = scheduler.listing()
    if not jobs:
        return CommandOutput("No scheduled jobs in this session.")
    return CommandOutput("\n".join(["Scheduled jobs:", *(f"  {job.line()}" for job in jobs)]))


# req: FH4
def _stop(scheduler: CronScheduler, ids: list[str]) -> CommandResult:
    """`/loop stop ID…` ends those jobs (any job, the model's too); `/loop stop` ends every job
    `/loop` made in this session."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        loops = [job for job in scheduler.listing() if job.made_by == "loop"]
        if not loops:
            return CommandOutput("No loop runs in this session: nothing to stop.")
        ids = [job.id for job in loops]
    unknown = [job_id for job_id in ids if job_id not in scheduler.jobs]
    if unknown:  # nothing stopped: a mistyped id must not end half of what was asked
        return CommandOutput(
            f"/loop stop: no scheduled job with id {unknown[0]!r} (/loop list lists them)",
            is_error=True,
        )
    jobs = [scheduler.delete(job_id) for job_id in ids]
    return CommandOutput("\n".join(f"Stopped {j.id} ({j.cron}): {j.prompt}" for j in jobs))


# req: CR5
def with_jobs_in_tasks(registry: CommandRegistry, scheduler: CronScheduler) -> None:
    """`/tasks` as it was, followed by the scheduled jobs with their next run."""
    tasks = registry.get("tasks")
    if tasks is None:
        return
    shown = tasks

    async def run(args: str) -> CommandResult:
        result = await shown.run(args)
        jobs = scheduler.listing()
        if not jobs:
            return result
        text = result.text if isinstance(result, CommandOutput) else ""
        lines = [text, "Scheduled jobs:"] if text else ["Scheduled jobs:"]
        lines += [f"  {job.line()}" for job in jobs]
        return CommandOutput("\n".join(lines))

    registry.register(Command(tasks.name, tasks.description, run, tasks.argument_hint))
