"""`TaskOutput`: any background task's output so far — a command's or a background agent's —
optionally after waiting for it to end (BashOutput is its older name, for commands)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult
from wave_tui.tools.processes import MAX_OUTPUT_CHARS, join_ends, truncate_output

if TYPE_CHECKING:
    from wave_tui.tools.background import BackgroundManager, BackgroundTask

TASK_OUTPUT_WAIT_MS = 30_000  # TaskOutput(block=true) waits this long unless told
TASK_OUTPUT_WAIT_MAX_MS = 600_000


# What one read of a task's output takes at most: its first and last this many bytes (a log
# that grew by gigabytes is never read whole into memory).
READ_EDGE_BYTES = MAX_OUTPUT_CHARS * 4


# req: SP7
def read_from(path: Path, offset: int) -> tuple[str, int]:
    """The output written after `offset` (its two ends, past `READ_EDGE_BYTES` each), and the
    offset to read from next."""
    with path.open("rb") as fh:
        end = fh.seek(0, os.SEEK_END)
        fh.seek(offset)
        if end - offset <= 2 * READ_EDGE_BYTES:
            data = fh.read(end - offset)
            return data.decode("utf-8", "replace"), offset + len(data)
        head = fh.read(READ_EDGE_BYTES).decode("utf-8", "replace")
        fh.seek(end - READ_EDGE_BYTES)
        tail = fh.read(READ_EDGE_BYTES).decode("utf-8", "replace")
    half = MAX_OUTPUT_CHARS // 2
    skipped = end - offset - len(head[:half].encode()) - len(tail[-half:].encode())
    return join_ends(head[:half], tail[-half:], f"about {skipped} bytes"), end


async def task_output(manager: BackgroundManager, task: BackgroundTask) -> ToolResult:
    """A background task's output so far: a command's whole file, an agent's progress lines
    (its file, with the final text, once it has ended)."""
    if task.kind == "agent" and task.status == "running":
        text = "\n".join(manager.progress(task.id))
    else:
        text, _ = await asyncio.to_thread(read_from, task.output_file, 0)
    body = truncate_output(text).rstrip("\n") or "(no output yet)"
    return ToolResult(
        content=f"Status: {task.status}\n{task.summary}\nOutput file: {task.output_file}\n\n{body}",
        summary=task.summary,
    )


@tool_arguments
class TaskOutputArgs:
    task_id: Annotated[str, Arg("The background task id (a command's or an agent's).")]
    block: Annotated[bool, Arg("Wait for the task to finish first (up to timeout).")] = False
    timeout: Annotated[int, Arg("With block: how long to wait, in milliseconds.", minimum=0)] = (
        TASK_OUTPUT_WAIT_MS
    )


class TaskOutputTool(TypedTool[TaskOutputArgs]):
    """`TaskOutput` (BashOutput is its older name): any background task's output so far."""

    name = "TaskOutput"
    description = (
        "Read the output so far of any background task (a Bash command run in the background or "
        "a background Agent) with its status; block=true waits for it to finish first."
    )
    read_only = True
    arguments = TaskOutputArgs

    def __init__(self, manager: BackgroundManager) -> None:
        self.manager = manager

    # req: BA3
    async def call(self, args: TaskOutputArgs, ctx: ToolContext) -> ToolResult:
        task_id = args.task_id.strip()
        task = self.manager.get(task_id)
        if task is None:
            raise ToolError(f"No background task with id {task_id}.")
        if args.block and task.status == "running":
            wait = min(args.timeout, TASK_OUTPUT_WAIT_MAX_MS) / 1000
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    task = await self.manager.wait(task_id)
            task = self.manager.get(task_id) or task
        return await task_output(self.manager, task)
