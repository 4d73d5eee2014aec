"""Plugs the session's scheduled prompts into a service: one call from the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wave_tui.agent.extensions import SessionObserver, ToolProvider
from wave_tui.features.cron.commands import loop_command, with_jobs_in_tasks
from wave_tui.features.cron.scheduler import CronScheduler

if TYPE_CHECKING:
    from wave_tui.agent.service import AgentService


def install_cron(service: AgentService) -> CronScheduler:
    """The cron tools, `/loop` and the jobs in `/tasks`; nothing runs until a job is made."""
    scheduler = CronScheduler(
        clock=service.clock,
        send=service.send,
        busy=lambda: service.busy,
        notify=service.notify,
        headless=service.options.headless,
    )
    service.add_extension(scheduler, ToolProvider, SessionObserver)
    service.commands.register(loop_command(scheduler))
    with_jobs_in_tasks(service.commands, scheduler)
    return scheduler
