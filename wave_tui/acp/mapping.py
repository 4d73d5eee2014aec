"""How wave's tool calls, task list and an ACP prompt translate into each other (titles,
kinds, tool-call updates, plans, text)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import acp

from wave_tui.permissions.tool_table import key_argument
from wave_tui.sdk.events import (
    ReasoningChunk,
    TextChunk,
    ToolProgressUpdate,
    ToolResult,
    ToolUse,
)

# The task statuses a plan entry can show (a deleted task leaves the plan).
_PLAN_STATUSES = ("pending", "in_progress", "completed")

_KINDS: dict[str, str] = {
    "Read": "read",
    "Write": "edit",
    "Edit": "edit",
    "Glob": "search",
    "Grep": "search",
    "Bash": "execute",
    "WebFetch": "fetch",
}


def tool_kind(name: str) -> Any:
    """The ACP tool kind the client picks an icon by."""
    return _KINDS.get(name, "other")


def tool_title(name: str, args: dict[str, Any]) -> str:
    key = key_argument(name, args)
    return f"{name} {key}" if key else name


def call_started(call_id: str, name: str, args: dict[str, Any]) -> Any:
    """The `tool_call` update that announces a call (live and when a session is loaded)."""
    return acp.start_tool_call(
        call_id, tool_title(name, args), kind=tool_kind(name), status="in_progress", raw_input=args
    )


def call_progressed(call_id: str, text: str) -> Any:
    """The `tool_call_update` with a running call's latest progress line as its content."""
    return acp.update_tool_call(
        call_id, status="in_progress", content=[acp.tool_content(acp.text_block(text))]
    )


def call_finished(call_id: str, content: str, is_error: bool) -> Any:
    """The `tool_call_update` with the call's end: its status and its result as content."""
    return acp.update_tool_call(
        call_id,
        status="failed" if is_error else "completed",
        content=[acp.tool_content(acp.text_block(content))],
        raw_output=content,
    )


def plan_update(tasks: Iterable[Any]) -> Any:
    """The task list as the client's plan (every change sends the whole list)."""
    return acp.update_plan(
        [
            acp.plan_entry(task.subject, status=task.status)
            for task in tasks
            if task.status in _PLAN_STATUSES
        ]
    )


def prompt_text(blocks: list[Any]) -> str:
    """The prompt's text: text blocks as they are, an embedded resource as its text, a link
    as an `@path` mention (wave attaches the file); image blocks are `prompt_images`'."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is not None:
                parts.append(f"{resource.uri}:\n{text}")
        elif kind == "resource_link":
            uri = str(block.uri)
            path = uri.removeprefix("file://")
            parts.append("@" + path.replace(" ", "\\ "))
    return "\n\n".join(parts)


def stream_update(event: object) -> Any:
    """The `session/update` for one event of a turn's stream (text, thought, a call's start,
    progress and end); None for the events ACP carries otherwise (the end of the turn)."""
    if isinstance(event, TextChunk):
        return acp.update_agent_message_text(event.text)
    if isinstance(event, ReasoningChunk):
        return acp.update_agent_thought_text(event.text)
    if isinstance(event, ToolUse):
        return call_started(event.id, event.name, event.input)
    if isinstance(event, ToolProgressUpdate):
        return call_progressed(event.id, event.text)
    if isinstance(event, ToolResult):
        return call_finished(event.id, event.content, event.is_error)
    return None
