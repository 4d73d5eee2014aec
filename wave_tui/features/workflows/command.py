"""`/workflows`: the session's workflow runs with their live phases and agents, answered in the
chat (never a turn); `/workflows stop <run-id>` stops one."""

from __future__ import annotations

from wave_tui.agent.commands import Command, CommandOutput, CommandResult
from wave_tui.features.workflows.runs import WorkflowRun, WorkflowRuns

USAGE = "usage: /workflows [stop <run-id>]"


def run_lines(run: WorkflowRun) -> list[str]:
    mode = ", background" if run.background else ""
    head = f"{run.id} [{run.status}] {run.name}{mode} — {run.agents_started} agents, "
    lines = [head + f"{run.tokens:,} tokens"]
    for phase in run.phases:
        live = " (running)" if phase is run.phases[-1] and run.status == "running" else ""
        lines.append(f"  phase {phase.name}{live}")
        for agent in phase.agents:
            lines.append(
                f"    [{agent.status}] {agent.description} ({agent.subagent_type}, "
                f"{agent.tokens:,} tokens)"
            )
    if run.error:
        lines.append(f"  error: {run.error}")
    return lines


# req: WK2
def workflows_command(runs: WorkflowRuns) -> Command:
    async def run(args: str) -> CommandResult:
        words = args.split()
        if words and words[0] == "stop":
            if len(words) != 2:
                return CommandOutput(USAGE)
            stopped = await runs.stop(words[1])
            if stopped is None:
                return CommandOutput(f"No workflow run {words[1]}.")
            return CommandOutput(f"Workflow run {stopped.id} ({stopped.name}): {stopped.status}.")
        if words:
            return CommandOutput(USAGE)
        listed = runs.runs()
        if not listed:
            return CommandOutput("No workflow runs in this session.")
        lines = ["Workflow runs:"]
        for one in listed:
            lines += [f"  {line}" for line in run_lines(one)]
        return CommandOutput("\n".join(lines))

    return Command(
        "workflows", "List workflow runs and their phases; stop one", run, "[stop <run-id>]"
    )
