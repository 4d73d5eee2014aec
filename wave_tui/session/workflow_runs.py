"""The session's workflow runs as plain snapshots (its phases, their agents and results, tokens,
elapsed time): the app's `/workflows` screen lists them newest first and stops one; the SDK's
run API (`sdk/workflows.py`) returns the same snapshots."""

from __future__ import annotations

import time
from pathlib import Path

from wave_tui.config.records import record
from wave_tui.features.workflows.runs import AgentStatus, RunStatus, WorkflowRun, WorkflowRuns
from wave_tui.features.workflows.wiring import workflows_of
from wave_tui.session.core import SessionCore


@record
class WorkflowAgentInfo:
    description: str
    subagent_type: str
    status: AgentStatus
    tokens: int
    result: str


@record
class WorkflowPhaseInfo:
    name: str
    agents: tuple[WorkflowAgentInfo, ...]


@record
class WorkflowRunInfo:
    """One run as it is now: what the SDK's run API returns and the app's screen shows."""

    id: str
    name: str
    status: RunStatus
    background: bool
    phase: str  # the phase running now, or the last one
    phases: tuple[WorkflowPhaseInfo, ...]
    tokens: int
    result: str
    error: str
    record_file: Path
    agents_running: int
    agents_done: int  # ended one way or another: completed, failed or stopped
    elapsed_s: int  # whole seconds, until now or until the run ended


def run_info(run: WorkflowRun, now: float | None = None) -> WorkflowRunInfo:
    agents = [a for p in run.phases for a in p.agents]
    running = sum(1 for a in agents if a.status == "running")
    end = run.ended_at if run.ended_at is not None else (time.time() if now is None else now)
    phases = tuple(
        WorkflowPhaseInfo(
            p.name,
            tuple(
                WorkflowAgentInfo(a.description, a.subagent_type, a.status, a.tokens, a.result)
                for a in p.agents
            ),
        )
        for p in run.phases
    )
    return WorkflowRunInfo(
        run.id,
        run.name,
        run.status,
        run.background,
        run.phase,
        phases,
        run.tokens,
        run.result,
        run.error,
        run.record_file,
        running,
        len(agents) - running,
        max(0, int(end - run.started_at)),
    )


def newest_first(runs: WorkflowRuns, now: float) -> list[WorkflowRunInfo]:
    return [run_info(run, now) for run in reversed(runs.runs())]  # kept in start order


class WorkflowRunsAccess:
    def __init__(self, core: SessionCore) -> None:
        self._core = core

    def _runs(self) -> WorkflowRuns | None:
        service = self._core.service
        feature = workflows_of(service) if service is not None else None
        return feature.runs if feature is not None else None

    @property
    def available(self) -> bool:
        """True when the session runs workflows (not `--bare` without them, not offline)."""
        return self._runs() is not None

    # req: WK2
    def runs(self) -> list[WorkflowRunInfo]:
        """Every run of the session, newest first (cheap: the screen polls it)."""
        runs = self._runs()
        return newest_first(runs, time.time()) if runs is not None else []

    # req: WK2
    async def stop(self, run_id: str) -> WorkflowRunInfo | None:
        """Stop a running run (its agents are cancelled); the run as it is after, or None when
        there is no such run."""
        runs = self._runs()
        stopped = await runs.stop(run_id) if runs is not None else None
        return run_info(stopped) if stopped is not None else None
