"""A finished background workflow run told to the model: a `<task-notification>` of
`task-type` `workflow`, in the same persisted isMeta message form as background agents' (004
§10). Stopped runs are never announced."""

from __future__ import annotations

from collections.abc import Sequence

from wave_tui.features.tasks.background_notices import AGENT_NOTIFICATION_HEADER, escape
from wave_tui.features.workflows.runs import WorkflowRun
from wave_tui.llm.types import Message

WORKFLOW_TASK_TYPE = "workflow"


def run_summary(run: WorkflowRun) -> str:
    if run.status == "failed":
        return f'Workflow "{run.name}" failed: {run.error}'
    return f'Workflow "{run.name}" {run.status}'


# req: WK3
def workflow_notification(runs: Sequence[WorkflowRun]) -> Message:
    blocks = [
        "<task-notification>\n"
        f"<task-id>{escape(run.id)}</task-id>\n"
        f"<task-type>{WORKFLOW_TASK_TYPE}</task-type>\n"
        f"<status>{run.status}</status>\n"
        f"<summary>{escape(run_summary(run))}</summary>\n"
        f"<output-file>{escape(str(run.record_file))}</output-file>\n"
        "</task-notification>"
        for run in runs
    ]
    body = "\n".join(blocks)
    return Message.user(
        f"{AGENT_NOTIFICATION_HEADER}\n{body}",
        is_meta=True,
        taskNotification=[run.id for run in runs],
    )
