"""The task reminder (`003`): a persisted isMeta nudge while tasks are open (TK4, TK5).

The count of assistant replies since the last task-tool use (or the last reminder) is taken from
the conversation itself, so it survives resume and compaction: the marker and the task-tool calls
are in the transcript, not in a counter that a restart would lose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from wave_tui.agent.extensions import ContextSourceBase
from wave_tui.llm.types import Message
from wave_tui.permissions.tool_table import TASK_CREATE, TASK_GET, TASK_LIST, TASK_UPDATE
from wave_tui.tools.tasks.store import TaskStore
from wave_tui.tools.tasks.tools import format_task_line

TASK_REMINDER_MARKER = "<!-- task-reminder -->"
REMINDER_INTERVAL = 10  # assistant replies without a task tool before the next reminder

REMINDER_TEXT = """\
The task tools have not been used for a while. If you are working on the tasks below, keep \
their status current: TaskUpdate to mark a task in_progress when you start it and completed as \
soon as it is done, TaskCreate for new steps, status deleted for tasks that no longer apply. \
Ignore this if it does not fit the current work, and never mention this reminder to the user."""

# The task tools whose call shows the list is in use (TaskGet too: the model is looking at it).
_TASK_TOOLS = frozenset({TASK_CREATE, TASK_GET, TASK_UPDATE, TASK_LIST})


def is_task_reminder(message: Message) -> bool:
    return (
        message.role == "user"
        and message.is_meta
        and message.content.startswith(TASK_REMINDER_MARKER)
    )


def replies_since_task_activity(messages: Sequence[Message], up_to: int | None = None) -> int:
    """Assistant replies since the last task-tool call or task reminder, newest first; counting
    stops at `up_to` (each request asks whether a reminder is due: without a bound, a session
    that never used the task tools was walked to its first message every time)."""
    count = 0
    for message in reversed(messages):
        if up_to is not None and count >= up_to:
            break
        if is_task_reminder(message):
            break
        if message.role == "assistant":
            if any(call.name in _TASK_TOOLS for call in message.tool_calls):
                break
            count += 1
    return count


def reminder_message(open_lines: Sequence[str]) -> Message:
    text = f"{TASK_REMINDER_MARKER}\n{REMINDER_TEXT}\n\nOpen tasks:\n" + "\n".join(open_lines)
    return Message.user(text, is_meta=True, taskReminder=True)


class TaskReminderSource(ContextSourceBase):
    """A `ContextSource`: `messages` returns the live conversation (e.g. `lambda: service.messages`)."""

    def __init__(
        self,
        store: TaskStore,
        messages: Callable[[], Sequence[Message]],
        interval: int = REMINDER_INTERVAL,
    ) -> None:
        self.store = store
        self._messages = messages
        self.interval = interval

    # req: TK4
    # req: TK5
    def before_request(self) -> list[Message]:
        if replies_since_task_activity(self._messages(), self.interval) < self.interval:
            return []
        # Only read when due: a small file, atomically replaced by writers, so no lock is needed.
        open_tasks = [t for t in self.store.read_now() if t.is_open]
        if not open_tasks:
            return []
        return [reminder_message([format_task_line(t) for t in open_tasks])]
