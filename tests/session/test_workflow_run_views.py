"""The `/workflows` screen's snapshots of runs (WK2): newest first, agents running and done,
and an ended run's elapsed time frozen at its end."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from wave_tui.features.workflows.runs import AgentRecord, PhaseRecord, WorkflowRuns
from wave_tui.session.workflow_runs import newest_first, run_info

pytestmark = pytest.mark.req("WK2")


async def test_an_ended_run_keeps_its_elapsed_time(tmp_path: Path) -> None:
    runs = WorkflowRuns(lambda run_id: tmp_path / f"{run_id}.json")
    run = runs.new("fanout", None, background=False)
    run.started_at = time.time() - 125
    run.phases.append(
        PhaseRecord(
            "search",
            [
                AgentRecord("a", "general-purpose", "completed", 7),
                AgentRecord("b", "general-purpose"),
            ],
        )
    )
    runs.changed(run)
    assert run.ended_at is None  # still running
    view = run_info(run, run.started_at + 10)
    assert (view.elapsed_s, view.agents_running, view.agents_done, view.tokens) == (10, 1, 1, 7)
    run.status = "completed"
    runs.changed(run)
    assert run.ended_at is not None
    later = run_info(run, run.ended_at + 3600)
    assert 125 <= later.elapsed_s < 3600  # the end, not the hour after it
    await runs.flushed(run.id)


async def test_runs_are_listed_newest_first(tmp_path: Path) -> None:
    runs = WorkflowRuns(lambda run_id: tmp_path / f"{run_id}.json")
    first = runs.new("one", None, background=False)
    second = runs.new("two", None, background=True)
    views = newest_first(runs, time.time())
    assert [(v.id, v.name, v.background) for v in views] == [
        (second.id, "two", True),
        (first.id, "one", False),
    ]
