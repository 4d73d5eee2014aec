"""Scheduled prompts in a real session over the scripted model server, with the session's clock
moved by hand (`AgentOptions.clock`): CronList's next run, firing only when idle, the 7-day
expiry and the 50-job cap, `/loop`, `/tasks`, and `wave -p` refusing them."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.model_server import ModelServer, Reply, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats, tool_results
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.features.cron.scheduler import HEADLESS_REFUSAL, MAX_JOBS, CronScheduler
from wave_tui.session.factory import create_service

START = datetime(2026, 3, 2, 9, 58, 30, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def service(
    model_server: ModelServer, project: Path, clock: Clock
) -> AsyncIterator[AgentService]:
    env = {
        "WAVE_BASE_URL": model_server.base_url,
        "WAVE_API_KEY": "k",
        "WAVE_MODEL": "test-model",
        "WAVE_DISABLE_AUTO_MEMORY": "1",
    }
    made = create_service(AgentOptions(workdir=project, environ=env, clock=clock))
    yield made
    await made.destroy()


def scheduler_of(service: AgentService) -> CronScheduler:
    found = service.extensions.of_type(CronScheduler)
    assert found is not None
    return found


def shown(when: datetime) -> str:
    return when.astimezone().strftime("%Y-%m-%d %H:%M %Z")


def prompts(server: ModelServer) -> list[str]:
    return [
        str(b["messages"][-1]["content"])
        for b in chats(server)
        if b["messages"][-1]["role"] == "user"
    ]


async def until(check: Callable[[], bool]) -> None:
    """Until the scheduler's own tick has done it (bounded, never a timing assertion)."""
    import asyncio

    for _ in range(400):
        if check():
            return
        await asyncio.sleep(0.025)
    raise AssertionError("the scheduler did not act")


@pytest.mark.req("CR1")
async def test_cron_create_list_delete_with_the_next_run(
    service: AgentService, model_server: ModelServer
) -> None:
    model_server.enqueue(
        tool_call("CronCreate", {"cron": "*/5 * * * *", "prompt": "check the deploy"}),
        tool_call("CronList", {}),
        text("scheduled"),
    )
    await service.run_turn("every five minutes")
    bodies = chats(model_server)
    created = tool_results(bodies[1])[-1]
    job_id = created.split()[2].rstrip(".")
    listed = tool_results(bodies[2])[-1]
    assert listed.startswith(job_id) and "[recurring] */5 * * * *" in listed
    assert f"next run {shown(datetime(2026, 3, 2, 10, 0, tzinfo=UTC))}" in listed
    assert "check the deploy" in listed
    model_server.enqueue(
        tool_call("CronDelete", {"id": job_id}), tool_call("CronList", {}), text("gone")
    )
    await service.run_turn("stop it")
    assert tool_results(chats(model_server)[-1])[-1] == "(no scheduled jobs)"


@pytest.mark.req("CR1")
@pytest.mark.parametrize(
    ("cron", "says"),
    [
        ("* * * * * *", "must have 5 fields"),
        ("0 0 30 2 *", "never fires"),
        ("99 * * * *", "invalid cron"),
        ("every day", "must have 5 fields"),
    ],
)
async def test_bad_cron_is_one_line_and_schedules_nothing(
    service: AgentService, model_server: ModelServer, cron: str, says: str
) -> None:
    model_server.enqueue(tool_call("CronCreate", {"cron": cron, "prompt": "x"}), text("no"))
    await service.run_turn("schedule")
    (result,) = tool_results(chats(model_server)[-1])
    assert says in result and "\n" not in result
    assert scheduler_of(service).jobs == {}


@pytest.mark.req("CR3")
async def test_a_due_job_fires_when_idle_and_waits_while_a_turn_runs(
    service: AgentService, model_server: ModelServer, clock: Clock
) -> None:
    scheduler = scheduler_of(service)
    job = scheduler.create("*/5 * * * *", "PING-JOB", recurring=True)
    hold = threading.Event()
    model_server.enqueue(Reply(content="slow", hold=hold))
    await service.send("long turn")
    await until(lambda: service.busy and len(chats(model_server)) == 1)
    clock.now = START + timedelta(minutes=3)  # 10:01:30: the 10:00 run is due
    assert await scheduler.fire_due() == []  # a turn runs: it waits
    hold.set()
    await service.wait_idle()
    model_server.enqueue(text("pong"))
    await until(lambda: "PING-JOB" in prompts(model_server))  # the scheduler's own tick
    await service.wait_idle()
    # Fired once; the next run is the next match after now.
    assert prompts(model_server).count("PING-JOB") == 1
    assert scheduler.jobs[job.id].next_run == datetime(2026, 3, 2, 10, 5, tzinfo=UTC)


@pytest.mark.req("CR4")
async def test_jobs_expire_after_seven_days_and_at_most_fifty(
    service: AgentService, model_server: ModelServer, clock: Clock
) -> None:
    scheduler = scheduler_of(service)
    for n in range(MAX_JOBS):
        scheduler.create("0 9 * * *", f"job {n}", recurring=True)
    model_server.enqueue(tool_call("CronCreate", {"cron": "0 9 * * *", "prompt": "one more"}))
    model_server.enqueue(text("full"))
    await service.run_turn("schedule")
    assert "at most 50 scheduled jobs" in tool_results(chats(model_server)[-1])[-1]
    clock.now = START + timedelta(days=7, seconds=1)
    assert scheduler.listing() == []
    # A one-shot job is gone once it fired.
    once = scheduler.create("0 10 * * *", "ONCE", recurring=False)
    clock.now = clock.now.replace(hour=10, minute=0, second=1)
    model_server.enqueue(text("did it"))
    await until(lambda: "ONCE" in prompts(model_server))
    await service.wait_idle()
    assert once.id not in scheduler.jobs


@pytest.mark.req("CR2")
@pytest.mark.req("CR5")
async def test_loop_schedules_a_recurring_job_listed_in_tasks(
    service: AgentService, model_server: ModelServer
) -> None:
    answer = await service.run_turn("/loop 30m check the deploy")
    assert answer.status == "completed" and "Every 30m: check the deploy" in answer.text
    default = await service.run_turn("/loop /babysit-prs")
    assert "Every 10m: /babysit-prs" in default.text
    tasks = await service.run_turn("/tasks")
    assert "Scheduled jobs:" in tasks.text
    assert f"*/30 * * * * — next run {shown(datetime(2026, 3, 2, 10, 0, tzinfo=UTC))}" in (
        tasks.text
    )
    assert "*/10 * * * *" in tasks.text and "/babysit-prs" in tasks.text
    assert chats(model_server) == []  # all answered locally


@pytest.mark.req("CR2")
@pytest.mark.parametrize(
    ("args", "says"),
    [
        ("30s check", "under a minute"),
        ("5x check", "malformed interval '5x'"),
        ("5m", "needs a prompt"),
        ("", "usage: /loop"),
        ("90m check", "not a whole number"),
    ],
)
async def test_loop_bad_interval_is_one_line_and_nothing_left(
    service: AgentService, args: str, says: str
) -> None:
    answer = await service.run_turn(f"/loop {args}".strip())
    assert answer.status == "error" and says in answer.text and "\n" not in answer.text
    assert scheduler_of(service).jobs == {}


@pytest.mark.req("CR1")
@pytest.mark.req("FH10")
def test_wave_p_offers_no_scheduling_and_refuses_loop_with_a_clear_line(
    model_server: ModelServer, project: Path
) -> None:
    """A `-p` run ends with its turn: the cron tools, which could only be refused there, are
    not offered, and a call of one is an unknown tool."""
    model_server.enqueue(tool_call("CronCreate", {"cron": "*/5 * * * *", "prompt": "x"}))
    model_server.enqueue(text("ok"))
    proc = run_wave("-p", "schedule", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    offered = {t["function"]["name"] for t in chats(model_server)[0]["tools"]}
    assert not offered & {"CronCreate", "CronList", "CronDelete"}
    (result,) = tool_results(chats(model_server)[-1])
    assert result.startswith("Unknown tool 'CronCreate'")
    loop = run_wave("-p", "/loop 5m check", cwd=project, server=model_server)
    assert loop.returncode == 1 and f"/loop: {HEADLESS_REFUSAL}" in loop.stderr
    assert json.dumps(HEADLESS_REFUSAL).count("\\n") == 0


@pytest.mark.req("FH4")
async def test_loop_list_and_stop_end_the_users_loops_and_leave_the_models(
    service: AgentService, model_server: ModelServer
) -> None:
    scheduler = scheduler_of(service)
    first = await service.run_turn("/loop 5m check the deploy")
    second = await service.run_turn("/loop 1h tidy up")
    models = scheduler.create("0 9 * * *", "the model's own", recurring=True)
    (one,) = [j for j in scheduler.jobs.values() if j.prompt == "check the deploy"]
    (two,) = [j for j in scheduler.jobs.values() if j.prompt == "tidy up"]
    assert f"/loop stop {one.id} stops it" in first.text and two.id in second.text
    listed = await service.run_turn("/loop list")
    assert all(j.id in listed.text for j in (one, two, models))
    stopped = await service.run_turn(f"/loop stop {one.id}")
    assert stopped.status == "completed" and f"Stopped {one.id}" in stopped.text
    assert set(scheduler.jobs) == {two.id, models.id}
    everything = await service.run_turn("/loop stop")
    assert f"Stopped {two.id}" in everything.text
    assert set(scheduler.jobs) == {models.id}  # without an id: the loops /loop made
    again = await service.run_turn("/loop stop")
    assert "nothing to stop" in again.text and set(scheduler.jobs) == {models.id}
    assert chats(model_server) == []  # all answered locally, no prompt was sent


@pytest.mark.req("FH4")
@pytest.mark.parametrize("args", ["stop", "list", "5m stop", "stop nope", "10m list"])
async def test_loop_command_words_are_never_scheduled_as_prompts(
    service: AgentService, args: str
) -> None:
    await service.run_turn(f"/loop {args}")
    assert scheduler_of(service).jobs == {}
