"""Building the exact request body of a main-loop turn (the extraction fork reuses it verbatim)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wave_tui.llm.types import Message, ToolSpec
from wave_tui.llm.wire import mark_last_message, message_to_wire, system_message

REMINDER_OPEN = "<system-reminder>"
REMINDER_CLOSE = "</system-reminder>"


@dataclass(frozen=True)
class SystemPrompt:
    static: str
    dynamic: str


def build_body(
    *,
    model: str,
    system: SystemPrompt,
    reminder: str | None,
    messages: list[Message],
    tools: list[ToolSpec],
    caching: bool,
    options: dict[str, Any] | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The chat-completions body: system first, the transient memory reminder, then history."""
    wire = [message_to_wire(m) for m in messages]
    if reminder:
        wire.insert(0, {"role": "user", "content": reminder})
    if caching:
        wire = mark_last_message(wire)
    body: dict[str, Any] = {
        "model": model,
        "messages": [system_message(system.static, system.dynamic, cache=caching), *wire],
        "tools": [t.to_wire() for t in tools],
    }
    for key, value in (options or {}).items():
        body.setdefault(key, value)
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body
