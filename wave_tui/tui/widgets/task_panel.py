"""The live task panel of the chat screen (TK4): pending / in progress / done, with the active
form while a task is in progress. Hidden while the list is empty."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from wave_tui.session.types import Task

MARKS = {
    "pending": ("○", "$text-muted"),
    "in_progress": ("◐", "$warning"),
    "completed": ("●", "$success"),
}


# req: TK4
def task_lines(tasks: Sequence[Task]) -> Content:
    shown = [t for t in tasks if t.status != "deleted"]
    done = sum(1 for t in shown if t.status == "completed")
    parts: list[str | tuple[str, str]] = [(f"Tasks {done}/{len(shown)} done", "bold")]
    for task in shown:
        mark, style = MARKS.get(task.status, MARKS["pending"])
        text = (
            task.active_form if task.status == "in_progress" and task.active_form else task.subject
        )
        text_style = "$text-muted strike" if task.status == "completed" else ""
        parts += ["\n", (f"{mark} ", style), (f"#{task.id} ", "$text-muted"), (text, text_style)]
    return Content.assemble(*parts)


class TaskPanel(Static):
    def __init__(self) -> None:
        super().__init__("", id="task-panel")
        self.display = False

    def show_tasks(self, tasks: Sequence[Task]) -> None:
        visible = [t for t in tasks if t.status != "deleted"]
        self.display = bool(visible)
        self.update(task_lines(visible))
