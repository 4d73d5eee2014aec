"""What `session/load` sends the client so it shows the conversation again, in its order: the
user's and the agent's messages (and the agent's thoughts), each tool call as a `tool_call`
followed by its `tool_call_update` (status and result), and the task list as a `plan`.

The transcript keeps the calls and their results but not the task list at each step, so the
plan is the session's task list as it is now, sent right after the last call that changed it
(a list whose calls were compacted away comes at the end).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import acp

from wave_tui.acp.mapping import call_finished, call_started, plan_update
from wave_tui.agent.tool_executor import stored_tool_result
from wave_tui.llm.types import Message, ToolCall
from wave_tui.permissions.tool_table import TASK_CREATE, TASK_UPDATE

# The tools whose calls change the task list.
_TASK_CHANGES = frozenset({TASK_CREATE, TASK_UPDATE})
_UNFINISHED = "The call did not finish."


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        parsed = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _last_task_change(messages: Sequence[Message]) -> int | None:
    """The index of the tool message that answered the last call changing the task list."""
    changing = {
        call.id
        for message in messages
        if message.role == "assistant"
        for call in message.tool_calls
        if call.name in _TASK_CHANGES
    }
    found = None
    for i, message in enumerate(messages):
        if message.role == "tool" and message.tool_call_id in changing:
            found = i
    return found


# req: MA11
def replay_updates(messages: Sequence[Message], tasks: Sequence[Any]) -> list[Any]:
    """The `session/update`s that show `messages` (and the task list `tasks`) in order."""
    updates: list[Any] = []
    plan_at = _last_task_change(messages) if tasks else None
    open_calls: list[str] = []
    for i, message in enumerate(messages):
        if message.role == "user" and not message.is_meta and message.content:
            updates.append(acp.update_user_message_text(message.content))
        elif message.role == "assistant":
            if message.reasoning:
                updates.append(acp.update_agent_thought_text(message.reasoning))
            if message.content:
                updates.append(acp.update_agent_message_text(message.content))
            for call in message.tool_calls:
                updates.append(call_started(call.id, call.name, _arguments(call)))
                open_calls.append(call.id)
        elif message.role == "tool" and (call_id := message.tool_call_id) in open_calls:
            assert call_id is not None
            open_calls.remove(call_id)
            stored = stored_tool_result(message)
            updates.append(call_finished(call_id, message.content, stored.is_error))
        if i == plan_at:
            updates.append(plan_update(tasks))
    # A call the transcript has no result for (the session ended in it) is not left running.
    updates.extend(call_finished(call_id, _UNFINISHED, True) for call_id in open_calls)
    if tasks and plan_at is None:
        updates.append(plan_update(tasks))
    return updates
