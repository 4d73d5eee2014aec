"""The session's scheduled prompts: the jobs, their next runs, and the one task that fires them.

Jobs belong to the session (never saved): at most 50, each gone 7 days of wall-clock time after
it was made. A due job fires only while the session is idle — while a turn runs it waits, and
fires once the turn has ended — and a recurring one then moves to its next run after now (runs
missed meanwhile are not made up). The firing task starts with the first job and is cancelled
when the session closes. Times come from the session's clock (`config/clock.py`), so tests move
time instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Literal

from wave_tui.agent.extensions import SessionObserverBase
from wave_tui.agent.turn_queue import AgentDestroyed
from wave_tui.config.clock import Clock
from wave_tui.config.records import record
from wave_tui.features.cron.schedule import ScheduleError, check_cron
from wave_tui.tools.base import Tool

MAX_JOBS = 50
JOB_LIFETIME = timedelta(days=7)
TICK_S = 1.0  # how often due jobs are looked for
# A fired job's prompt runs as if typed, commands included: a job that is itself `/loop` would
# let the model (CronCreate) or a loop make loops the user never typed, and loops make more.
NO_NESTED_LOOP = "a scheduled prompt cannot be /loop: only you start a loop, by typing it"
# Who made a job: `/loop` (the user; `/loop stop` without an id ends these) or the model.
MadeBy = Literal["loop", "model"]
HEADLESS_REFUSAL = (
    "scheduled prompts need a running session: a one-shot `wave -p` run has no later "
    "(run `wave` to schedule them)"
)


@record
class CronJob:
    id: str
    cron: str
    prompt: str
    recurring: bool
    created: datetime
    next_run: datetime
    made_by: MadeBy = "model"

    @property
    def expires(self) -> datetime:
        return self.created + JOB_LIFETIME

    def line(self) -> str:
        """One line for CronList and /tasks."""
        kind = "recurring" if self.recurring else "once"
        when = self.next_run.astimezone().strftime("%Y-%m-%d %H:%M %Z")
        ends = self.expires.astimezone().strftime("%Y-%m-%d %H:%M")
        return f"{self.id} [{kind}] {self.cron} — next run {when} (expires {ends}) — {self.prompt}"


class CronScheduler(SessionObserverBase):
    """ToolProvider (CronCreate, CronDelete, CronList) and SessionObserver (ends the firing
    task). `send` queues a prompt as a turn; `busy` tells whether a turn runs now."""

    def __init__(
        self,
        *,
        clock: Clock,
        send: Callable[[str], Awaitable[None]],
        busy: Callable[[], bool],
        notify: Callable[[str, str], None],
        headless: bool,
    ) -> None:
        self.clock = clock
        self._send = send
        self._busy = busy
        self._notify = notify
        self.headless = headless
        self.jobs: dict[str, CronJob] = {}
        self._task: asyncio.Task[None] | None = None
        self._tools: list[Tool] | None = None

    # req: FH10
    def tools(self) -> Sequence[Tool]:
        """CronCreate/CronList/CronDelete, except in `-p`: the run ends with its turn, so every
        create would be refused; tools that can only fail are not offered."""
        if self.headless:
            return ()
        if self._tools is None:
            from wave_tui.features.cron.tools import cron_tools

            self._tools = cron_tools(self)
        return self._tools

    # -- the jobs ------------------------------------------------------------------------------
    # req: CR4
    def create(self, cron: str, prompt: str, recurring: bool, made_by: MadeBy = "model") -> CronJob:
        if self.headless:
            raise ScheduleError(HEADLESS_REFUSAL)
        if not prompt.strip():
            raise ScheduleError("a scheduled job needs a prompt")
        if is_loop_command(prompt):
            raise ScheduleError(NO_NESTED_LOOP)
        now = self.clock()
        self.expire(now)
        if len(self.jobs) >= MAX_JOBS:
            raise ScheduleError(f"at most {MAX_JOBS} scheduled jobs; delete one first (CronDelete)")
        first = check_cron(cron, now)
        cron = " ".join(cron.split())
        job = CronJob(
            f"c{secrets.token_hex(3)}", cron, prompt.strip(), recurring, now, first, made_by
        )
        self.jobs[job.id] = job
        self._start()
        return job

    def delete(self, job_id: str) -> CronJob:
        job = self.jobs.pop(job_id.strip(), None)
        if job is None:
            raise ScheduleError(f"no scheduled job with id {job_id!r} (CronList lists them)")
        return job

    def listing(self) -> list[CronJob]:
        self.expire(self.clock())
        return sorted(self.jobs.values(), key=lambda j: j.next_run)

    def expire(self, now: datetime) -> None:
        for job in [j for j in self.jobs.values() if j.expires <= now]:
            del self.jobs[job.id]
            self._notify("cron", f"scheduled job {job.id} expired after 7 days: {job.prompt}")

    # -- firing --------------------------------------------------------------------------------
    def _start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            try:
                await self.fire_due()
            except AgentDestroyed:
                return  # the session is closing: nothing more fires

    # req: CR3
    async def fire_due(self) -> list[CronJob]:
        """Fire the jobs due now, oldest run first, while the session is idle: each one's
        prompt becomes a turn; a busy session leaves them waiting for the next look."""
        now = self.clock()
        self.expire(now)
        fired = []
        for job in sorted(self.jobs.values(), key=lambda j: j.next_run):
            if job.next_run > now or self._busy():
                break
            if job.recurring:
                try:
                    self.jobs[job.id] = replace(job, next_run=check_cron(job.cron, now))
                except ScheduleError:
                    del self.jobs[job.id]
            else:
                del self.jobs[job.id]
            self._notify("cron", f"scheduled job {job.id}: {job.prompt}")
            fired.append(job)
            await self._send(job.prompt)
        return fired

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


# req: HR11
def is_loop_command(prompt: str) -> bool:
    """Whether `prompt` would run `/loop` when it is sent."""
    words = prompt.split(maxsplit=1)
    return bool(words) and words[0].lower() == "/loop"
