"""The task reminder: counted from the messages, persisted as an isMeta message (TK4, TK5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.features.tasks.reminder import (
    REMINDER_INTERVAL,
    TASK_REMINDER_MARKER,
    TaskReminderSource,
    replies_since_task_activity,
)
from wave_tui.llm.types import Message, ToolCall
from wave_tui.tools.tasks.store import TaskPatch, TaskStore


def _reply(tool: str | None = None) -> Message:
    calls = [ToolCall(id="c", name=tool)] if tool else []
    return Message(role="assistant", content="ok", tool_calls=calls)


@pytest.mark.req("TK4")
async def test_tk4_reminder_after_ten_replies_without_task_tool(project: Path) -> None:
    store = TaskStore(WavePaths.for_workdir(project), "s")
    await store.create("Open one", active_form="Doing")
    done = await store.create("Done one")
    await store.update(done.id, TaskPatch(status="completed"))
    messages: list[Message] = [Message.user("go"), _reply("TaskCreate")]
    source = TaskReminderSource(store, lambda: messages)
    messages += [_reply() for _ in range(9)]
    assert source.before_request() == []
    messages.append(_reply())
    (reminder,) = source.before_request()
    assert reminder.is_meta and reminder.role == "user"
    assert reminder.content.startswith(TASK_REMINDER_MARKER)
    assert "#1 [pending] Open one" in reminder.content and "Done one" not in reminder.content
    messages.append(reminder)  # the loop persists it: the count starts again
    assert source.before_request() == []


@pytest.mark.req("TK4")
async def test_tk4_no_reminder_without_open_tasks(project: Path) -> None:
    store = TaskStore(WavePaths.for_workdir(project), "s")
    messages = [_reply() for _ in range(12)]
    assert TaskReminderSource(store, lambda: messages).before_request() == []


@pytest.mark.req("TK5")
def test_tk5_counter_survives_a_transcript_round_trip() -> None:
    """Resume reads the transcript: the marker and task calls are in it, so the count is the same."""
    reminder = Message.user(f"{TASK_REMINDER_MARKER}\nx", is_meta=True)
    messages = [_reply("TaskUpdate"), _reply(), reminder, _reply(), _reply()]
    restored = [Message.model_validate_json(m.to_json_line()) for m in messages]
    assert replies_since_task_activity(restored) == 2
    assert replies_since_task_activity(restored[:2]) == 1


@pytest.mark.req("TK4")
def test_tk4_the_count_stops_at_the_interval() -> None:
    """Asked before every request: a long session without task tools is not walked to its start."""
    messages = [_reply() for _ in range(50)]
    assert replies_since_task_activity(messages) == 50
    assert replies_since_task_activity(messages, REMINDER_INTERVAL) == REMINDER_INTERVAL
    assert replies_since_task_activity(messages[:3], REMINDER_INTERVAL) == 3
