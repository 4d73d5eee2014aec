"""`/tasks` and `/agents`: answered locally, never a turn (TK3, AG1, AG2)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from wave_tui.agent.commands import Command, CommandOutput, CommandResult
from wave_tui.features.subagents.definitions import SubagentCatalog
from wave_tui.tools.background import BackgroundManager
from wave_tui.tools.tasks.store import TaskStore
from wave_tui.tools.tasks.tools import format_task_line, task_list_label


def tasks_command(
    store: TaskStore,
    background: BackgroundManager | None = None,
    session_id: Callable[[], str] | None = None,
) -> Command:
    """`session_id` names the session the user is in now: the list keeps the id of the session
    it began in (compaction continues it under a new id), which the user never sees."""

    # req: TK3
    # req: FH10
    async def run(args: str) -> CommandResult:
        tasks = await store.all_tasks()
        current = session_id() if session_id is not None else None
        lines = [f"{task_list_label(store.list_id, current)}:"]
        lines += [f"  {format_task_line(t)}" for t in tasks] or ["  (no tasks)"]
        running = background.tasks() if background is not None else []
        commands = [t for t in running if t.kind == "bash"]
        agents = [t for t in running if t.kind == "agent"]
        if commands:
            lines.append("Background commands:")
            lines += [f"  {t.id} [{t.status}] {t.label} — {t.output_file}" for t in commands]
        if agents and background is not None:
            lines.append("Background agents:")
            for t in agents:
                steps = background.progress(t.id)
                last = f" — {steps[-1]}" if steps and t.status == "running" else ""
                lines.append(f"  {t.id} [{t.status}] {t.label}{last} — {t.output_file}")
        return CommandOutput("\n".join(lines))

    return Command("tasks", "Show the task list and background commands", run)


def agents_command(catalog: Callable[[], SubagentCatalog]) -> Command:
    """`catalog` is called on each run, so edited `.wave/agents/*.md` files show at once
    (e.g. `lambda: load_subagents(paths)`; it is run in a worker thread)."""

    async def run(args: str) -> CommandResult:

        loaded = await asyncio.to_thread(catalog)
        lines = ["Subagent types:"]
        for d in loaded.definitions:
            model = (
                "fast model"
                if d.model == "fast"
                else ("main model" if d.model == "main" else d.model)
            )
            tools = "all tools but Agent" if d.tools is None else ", ".join(d.tools)
            mode = ", read-only" if d.read_only else ""
            lines.append(f"  {d.name} ({d.source}; {model}; {tools}{mode}) — {d.description}")
        lines += [f"warning: {w}" for w in loaded.warnings]
        return CommandOutput("\n".join(lines))

    return Command("agents", "List the subagent types", run)
