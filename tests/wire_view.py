"""Reading wire messages as the client sends them (PV6): a user message may carry several text
parts (reminder, isMeta messages and the user's text folded together), a tool message may carry
the isMeta text that followed it, and the system prompt is one string unless caching is on."""

from __future__ import annotations

import re
from typing import Any

from wave_tui.agent.prompts import STATIC_SYSTEM_PROMPT

FOLD_SEPARATOR = "\n\n"


def parts(message: dict[str, Any]) -> list[str]:
    """The text parts of one wire message (a string content is one part)."""
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, dict) and "text" in p]
    return []


# What the client folds into a tool result: injected rule / nested-memory / reminder messages.
_FOLDED = re.compile(r"\n\n(?=<system-reminder>|<!-- rule:)")


def segments(message: dict[str, Any]) -> list[str]:
    """The messages a wire message carries: its parts, a tool result split from what was folded
    into it (the transcript's separate isMeta messages)."""
    if message.get("role") == "tool":
        return [s for p in parts(message) for s in _FOLDED.split(p)]
    return parts(message)


def texts(messages: list[dict[str, Any]], role: str | None = None) -> list[str]:
    """Every segment of `messages` (of one role), in order."""
    return [t for m in messages if role is None or m.get("role") == role for t in segments(m)]


def flat(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(role, text) for every segment, in wire order."""
    return [(str(m.get("role")), t) for m in messages for t in segments(m)]


def system_text(body: dict[str, Any]) -> str:
    return FOLD_SEPARATOR.join(parts(body["messages"][0]))


def static_block(body: dict[str, Any]) -> str:
    first = parts(body["messages"][0])[0]
    assert first.startswith(STATIC_SYSTEM_PROMPT)
    return first[: len(STATIC_SYSTEM_PROMPT)]


def dynamic_block(body: dict[str, Any]) -> str:
    """The system prompt after its static block (the second part when sent as parts)."""
    blocks = parts(body["messages"][0])
    if len(blocks) > 1:
        return blocks[-1]
    text = blocks[0]
    assert text.startswith(STATIC_SYSTEM_PROMPT)
    return text[len(STATIC_SYSTEM_PROMPT) :].removeprefix(FOLD_SEPARATOR)
