"""The SDK's background-work API (004 §10): background commands and subagents, their output,
and the foreground tasks that can move to the background (`ForegroundTask`).

A background command is a Bash call the model ran with `run_in_background` (a "shell"); a
background task is any background work, commands and subagents alike. Both are the session's
own (`/tasks` in the app lists the same); their output is the file the command writes, read in
a thread so a program's loop never waits on the disk.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

from wave_tui.config.records import record
from wave_tui.tools.background import BackgroundManager, BackgroundTask
from wave_tui.tools.base import ToolError
from wave_tui.tools.foreground import ForegroundTask as ForegroundTask


@record
class BackgroundTaskInfo:
    """One background command ("bash") or subagent ("agent") of the session."""

    id: str
    kind: Literal["bash", "agent"]
    label: str
    command: str
    status: Literal["running", "completed", "failed", "killed"]
    exit_code: int | None
    output_file: Path


@record
class BackgroundOutput:
    """Lines `offset` to `offset + limit` of a background task's output; `total_lines` is how
    many it has so far."""

    content: str
    total_lines: int
    status: Literal["running", "completed", "failed", "killed"]


def task_info(task: BackgroundTask) -> BackgroundTaskInfo:
    return BackgroundTaskInfo(
        task.id, task.kind, task.label, task.command, task.status, task.exit_code, task.output_file
    )


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []


# req: SX9
async def read_output(
    manager: BackgroundManager,
    task_id: str,
    offset: int,
    limit: int | None,
    kind: Literal["bash"] | None,
) -> BackgroundOutput | None:
    """The output of `task_id` (only a command's when `kind` is "bash"); None: no such task."""
    task = manager.get(task_id)
    if task is None or (kind is not None and task.kind != kind):
        return None
    if offset < 0 or (limit is not None and limit < 0):
        raise ValueError("offset and limit must not be negative")
    lines = await asyncio.to_thread(_lines, task.output_file)
    if task.kind == "agent" and not lines:
        lines = manager.progress(task_id)  # a running subagent writes its file at the end
    end = None if limit is None else offset + limit
    return BackgroundOutput("\n".join(lines[offset:end]), len(lines), task.status)


async def stop_task(manager: BackgroundManager, task_id: str, kind: Literal["bash"] | None) -> bool:
    """Stop a running task (only a command when `kind` is "bash"); False when there is no
    such running task."""
    task = manager.get(task_id)
    if task is None or task.status != "running" or (kind is not None and task.kind != kind):
        return False
    try:
        await manager.stop(task_id)
    except ToolError:  # it ended on its own meanwhile
        return False
    return True
