"""`/loop [interval] PROMPT|/command`, and the scheduled jobs in `/tasks` (CR2, CR5)."""

from __future__ import annotations

from wave_tui.agent.commands import Command, CommandOutput, CommandRegistry, CommandResult
from wave_tui.features.cron.schedule import ScheduleError, parse_loop
from wave_tui.features.cron.scheduler import CronScheduler


def loop_command(scheduler: CronScheduler) -> Command:
    # req: CR2
    async def run(args: str) -> CommandResult:
        try:
            request = parse_loop(args)
            job = scheduler.create(request.cron, request.prompt, True)
        except ScheduleError as exc:
            return CommandOutput(f"/loop: {exc}", is_error=True)
        return CommandOutput(
            f"Every {request.every}: {job.prompt}\n{job.line()}\n"
            f"/tasks lists it; CronDelete {job.id} (or ask) stops it."
        )

    return Command(
        "loop",
        "Run a prompt or /command again and again (every 10m unless told)",
        run,
        argument_hint="[interval] PROMPT",
    )


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
