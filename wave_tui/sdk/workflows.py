"""The workflow run API of an `Agent` (004 §10): `get_workflow_runs()`, `get_workflow_run(id)`,
`stop_workflow_run(id)`, each run as a `WorkflowRunInfo` snapshot (its phases, their agents
with tokens and results, how it ended)."""

from __future__ import annotations

from wave_tui.features.workflows.wiring import workflows_of
from wave_tui.sdk.agent_state import AgentState
from wave_tui.session.workflow_runs import (
    WorkflowAgentInfo,
    WorkflowPhaseInfo,
    WorkflowRunInfo,
    run_info,
)

__all__ = ["AgentWorkflows", "WorkflowAgentInfo", "WorkflowPhaseInfo", "WorkflowRunInfo"]


class AgentWorkflows(AgentState):
    """The part of `Agent` that is workflow runs (see `Agent`)."""

    # req: WK2
    async def get_workflow_runs(self) -> list[WorkflowRunInfo]:
        """Every workflow run of this session, oldest first."""
        self._check()
        feature = workflows_of(self._agent())
        return [] if feature is None else [run_info(r) for r in feature.runs.runs()]

    # req: WK2
    def get_workflow_run(self, run_id: str) -> WorkflowRunInfo | None:
        self._check()
        feature = workflows_of(self._agent())
        run = None if feature is None else feature.runs.get(run_id)
        return None if run is None else run_info(run)

    # req: WK2
    async def stop_workflow_run(self, run_id: str) -> bool:
        """Stop a running run (its agents are cancelled; it is never announced); False when
        there is no such run or it had already ended."""
        self._check()
        feature = workflows_of(self._agent())
        if feature is None:
            return False
        run = feature.runs.get(run_id)
        if run is None or run.status != "running":
            return False
        await feature.runs.stop(run_id)
        return True
