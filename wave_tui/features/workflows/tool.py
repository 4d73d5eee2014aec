"""The `Workflow` tool: `Workflow(name, args?, run_in_background?)` runs a workflow script and
answers with its result, or at once with a run id when it runs in the background."""

from __future__ import annotations

import asyncio
from typing import Any

from wave_tui.features.workflows.feature import WorkflowsFeature
from wave_tui.features.workflows.runs import WorkflowRun
from wave_tui.permissions.tool_table import WORKFLOW
from wave_tui.tools.base import BaseTool, ToolContext, ToolError, ToolResult

DESCRIPTION = """\
Run a workflow: a script of phases, each starting several subagents in parallel and waiting for \
them, ending with one result. Use it when a task matches a workflow below. Each subagent's tool \
calls are checked as any subagent's.
- name: the workflow's name.
- args: any JSON value the workflow reads as `args` (e.g. {"question": "..."}).
- run_in_background: answered at once with a run id; you are told when it finishes (the user \
follows it in /workflows).

Available workflows:"""


def describe(feature: WorkflowsFeature) -> str:
    listed = [
        f"- {w.name} ({w.scope})" + (f": {w.description}" if w.description else "")
        for w in feature.known
    ]
    return "\n".join([DESCRIPTION, *(listed or ["(none found yet)"])])


def _report(run: WorkflowRun) -> str:
    lines = [f"Workflow {run.name} (run {run.id}) {run.status}."]
    for phase in run.phases:
        done = sum(1 for a in phase.agents if a.status == "completed")
        lines.append(f"Phase {phase.name}: {done}/{len(phase.agents)} agents completed.")
    if run.error:
        lines.append(f"Error: {run.error}")
    if run.result:
        lines += ["Result:", run.result]
    lines.append(f"Record: {run.record_file}")
    return "\n".join(lines)


class WorkflowTool(BaseTool):
    name = WORKFLOW
    read_only = False  # what its agents may do is decided by their own tools and permissions

    def __init__(self, feature: WorkflowsFeature) -> None:
        self.feature = feature
        self.description = describe(feature)

    @property
    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The workflow's name."},
                "args": {"description": "Any JSON value the workflow reads as `args`."},
                "run_in_background": {
                    "type": "boolean",
                    "description": "Answer at once with a run id; you are told when it ends.",
                },
            },
            "required": ["name"],
        }

    # req: WK1
    async def _run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        name = args.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ToolError("Missing required parameter `name`.")
        background = args.get("run_in_background") is True
        try:
            workflow = await self.feature.find(name.strip())
        finally:
            self.description = describe(self.feature)  # the folders were read again
        grants = await self.feature.run_grants(workflow)
        run = self.feature.start(workflow, args.get("args"), background, grants)
        if background:
            return ToolResult(
                content=(
                    f"Workflow {workflow.name} running in the background with run id {run.id}.\n"
                    f"Its record is written to {run.record_file}. You will be told when it "
                    "finishes; do not wait for it."
                ),
                summary=f"{workflow.name} (background {run.id})",
            )
        runs = self.feature.runs
        try:
            await runs.wait(run.id)
        except asyncio.CancelledError:
            await runs.stop(run.id)  # the turn was aborted: the run ends with it
            raise
        return ToolResult(
            content=_report(run),
            is_error=run.status != "completed",
            summary=f"{workflow.name}: {run.status}",
        )
