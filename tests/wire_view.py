"""Reading wire messages as the client sends them (PV6): a user message may carry several text
parts (reminder, isMeta messages and the user's text folded together), a tool message may carry
the isMeta text that followed it, and the system prompt is one string unless caching is on.
Also the one home of the views of what the scripted server received: its chat bodies, the
main agent's alone, and each body's tools offered and tool results."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.model_server import ModelServer
from wave_tui.agent.prompts import STATIC_SYSTEM_PROMPT

FOLD_SEPARATOR = "\n\n"

# What every subagent's system prompt says (features/subagents/definitions.py); the main
# agent's never does.
SUBAGENT_MARK = "You are a subagent"


def chats(server: ModelServer) -> list[dict[str, Any]]:
    """The chat-completions request bodies the scripted server received, in order (not the
    model-list GETs or other paths)."""
    return [r.body for r in server.requests if r.path.endswith("/chat/completions")]


def is_child(body: dict[str, Any]) -> bool:
    """Whether a request body is a subagent's (its system prompt carries the subagent mark)."""
    return SUBAGENT_MARK in json.dumps(body["messages"][0])


def main_chats(server: ModelServer) -> list[dict[str, Any]]:
    """The chat bodies of the main agent alone, leaving out its subagents' requests."""
    return [b for b in chats(server) if not is_child(b)]


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offered, in order (none when it sent no tools)."""
    return [t["function"]["name"] for t in body.get("tools") or []]


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The `role: tool` messages of a request, whole, in order."""
    return [m for m in body["messages"] if m.get("role") == "tool"]


def tool_results(body: dict[str, Any]) -> list[str]:
    """The text of each `role: tool` message of a request, in order (a result sent as parts,
    e.g. with images or a cache mark, is its text parts joined)."""
    return [FOLD_SEPARATOR.join(parts(m)) for m in tool_messages(body)]


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
