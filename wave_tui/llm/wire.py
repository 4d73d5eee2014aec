"""Conversion of conversation messages to the OpenAI chat-completions wire format."""

from __future__ import annotations

import copy
from typing import Any

from wave_tui.llm.types import Message

CACHE_MARK: dict[str, str] = {"type": "ephemeral"}
COMPRESS_PREFIX = "[Conversation summary]\n"


def system_message(static: str, dynamic: str, *, cache: bool) -> dict[str, Any]:
    """The system prompt: a list of text parts, static block first (cache-marked when caching)."""
    static_part: dict[str, Any] = {"type": "text", "text": static}
    if cache:
        static_part["cache_control"] = dict(CACHE_MARK)
    parts = [static_part]
    if dynamic:
        parts.append({"type": "text", "text": dynamic})
    return {"role": "system", "content": parts}


def message_to_wire(message: Message) -> dict[str, Any]:
    if message.role == "assistant":
        wire: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:
            wire["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in message.tool_calls
            ]
        if wire["content"] is None and not message.tool_calls:
            wire["content"] = ""
        return wire
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    content = message.content
    if message.kind == "compress":
        content = COMPRESS_PREFIX + content
    return {"role": "user", "content": content}


def mark_last_message(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return a copy whose last message carries the cache mark on its last text part."""
    if not messages:
        return messages
    out = list(messages)
    last = copy.deepcopy(out[-1])
    content = last.get("content")
    if isinstance(content, str):
        last["content"] = [{"type": "text", "text": content, "cache_control": dict(CACHE_MARK)}]
    elif isinstance(content, list) and content:
        content[-1]["cache_control"] = dict(CACHE_MARK)
    else:
        return out  # an assistant message with only tool calls: nothing to mark
    out[-1] = last
    return out


def strip_cache_marks(value: Any) -> Any:
    """A copy of a request body (or part) without any `cache_control` key."""
    if isinstance(value, dict):
        return {k: strip_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_marks(v) for v in value]
    return value
