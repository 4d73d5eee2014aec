"""The foreground work that can move to the background: Ctrl+B and `background_current_task`.

A foreground Bash command or subagent registers itself while it runs, with a handler that moves
it to the background (its tool call then answers at once with a task id and an output file, as
`run_in_background` would, and the work goes on). A program registers its own work the same
way. The most recently registered task is the current one; listeners hear every change so the
app can show Ctrl+B only while there is something to move.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Literal

from wave_tui.config.records import record

ForegroundHandler = Callable[[], Awaitable[None] | None]
# "changed": a task was registered or left; "backgrounded": the current one was moved.
ForegroundChange = Literal["changed", "backgrounded"]
ForegroundListener = Callable[[ForegroundChange], None]


@record
class ForegroundTask:
    """Work running in the foreground that `background_handler` moves to the background."""

    id: str
    background_handler: ForegroundHandler
    label: str = ""
    kind: str = "custom"


class ForegroundTasks:
    """The session's foreground tasks, the newest one current."""

    def __init__(self) -> None:
        self._tasks: dict[str, ForegroundTask] = {}
        self._listeners: list[ForegroundListener] = []

    def subscribe(self, listener: ForegroundListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _tell(self, change: ForegroundChange) -> None:
        for listener in list(self._listeners):
            listener(change)

    def register(self, task: ForegroundTask) -> None:
        """Add `task` (it replaces one of the same id) as the current one."""
        self._tasks.pop(task.id, None)
        self._tasks[task.id] = task
        self._tell("changed")

    def unregister(self, task_id: str) -> bool:
        """Forget `task_id` (its work ended in the foreground); False when it was not there."""
        if self._tasks.pop(task_id, None) is None:
            return False
        self._tell("changed")
        return True

    @property
    def current(self) -> ForegroundTask | None:
        return next(reversed(self._tasks.values()), None)

    # req: SX9
    async def background_current(self) -> str | None:
        """Move the current task to the background; its id, or None when none runs."""
        task = self.current
        if task is None:
            return None
        del self._tasks[task.id]
        result = task.background_handler()
        if inspect.isawaitable(result):
            await result
        self._tell("changed")
        self._tell("backgrounded")
        return task.id
