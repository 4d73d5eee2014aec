"""What `Agent.stream()` yields and what the callbacks are given: small typed records.

They are the SDK's own, not the loop's internal events (`agent/events.py` may change; these are
public). `to_stream_event` maps an internal event to the one a program sees, or None for the
many a program has no use for (status, queue, memory notices…).
"""

from __future__ import annotations

from typing import Any, Literal

from wave_tui.agent import events as ev
from wave_tui.config.records import record

Stage = Literal["streaming", "end"]
ToolStage = Literal["running", "end"]


@record
class TextChunk:
    """A piece of the assistant's answer (append them to get the text)."""

    message_id: str
    text: str


@record
class ReasoningChunk:
    message_id: str
    text: str


@record
class ToolUse:
    """The model called a tool (before the permission check)."""

    id: str
    name: str
    input: dict[str, Any]


@record
class ToolResult:
    id: str
    name: str
    content: str
    is_error: bool


@record
class ToolProgressUpdate:
    """A running tool's latest progress line (an MCP server's progress), until its result."""

    id: str
    name: str
    text: str


@record
class ErrorEvent:
    message: str


@record
class TurnEnd:
    """The last event of a turn: how it ended, its final text and, when it failed, why."""

    status: Literal["completed", "aborted", "error"]
    text: str
    error: str | None = None


StreamEvent = (
    TextChunk | ReasoningChunk | ToolUse | ToolProgressUpdate | ToolResult | ErrorEvent | TurnEnd
)


@record
class ContentUpdate:
    """`on_assistant_content_updated` / `on_assistant_reasoning_updated`: `chunk` is new text
    since the last call (never the accumulated text); stage "end" closes the message."""

    message_id: str
    chunk: str
    stage: Stage


@record
class ToolBlockUpdate:
    """`on_tool_block_updated`: a tool call starting ("running") and finished ("end")."""

    id: str
    name: str
    parameters: dict[str, Any]
    stage: ToolStage
    result: str = ""
    is_error: bool = False
    progress: str = ""  # while "running": the tool's latest progress line, if it reports any


def to_stream_event(event: ev.AgentEvent) -> StreamEvent | None:
    if isinstance(event, ev.TextDelta):
        return TextChunk(event.message_id, event.text)
    if isinstance(event, ev.ReasoningDelta):
        return ReasoningChunk(event.message_id, event.text)
    if isinstance(event, ev.ToolStarted):
        return ToolUse(event.call_id, event.name, dict(event.args))
    if isinstance(event, ev.ToolProgress) and event.call_id:
        return ToolProgressUpdate(event.call_id, event.name, event.text)
    if isinstance(event, ev.ToolFinished):
        return ToolResult(event.call_id, event.name, event.content, event.is_error)
    if isinstance(event, (ev.ErrorOccurred, ev.PromptFailed)):
        return ErrorEvent(event.message if isinstance(event, ev.ErrorOccurred) else event.error)
    return None


def as_whole(event: ev.AgentEvent) -> list[ev.AgentEvent]:
    """The events as `stream=False` shows them: no pieces while a reply streams, its whole
    reasoning and text as one piece each when it ends."""
    if isinstance(event, (ev.TextDelta, ev.ReasoningDelta)):
        return []
    if isinstance(event, ev.AssistantFinished):
        message = event.message
        whole: list[ev.AgentEvent] = []
        if message.reasoning:
            whole.append(ev.ReasoningDelta(message.id, message.reasoning))
        if message.content:
            whole.append(ev.TextDelta(message.id, message.content))
        return [*whole, event]
    return [event]
