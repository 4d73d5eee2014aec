"""The bundled demo model's requests: brief, so that its first answer comes in seconds.

The demo model (gemma-3-270m, a base model without chat training) cannot use tools nor follow a
system prompt; sent the agent's whole request (~5,000 tokens of system block, tool schemas and
`<system-reminder>` blocks) it spent over a minute of CPU reading it and answered with an echo
of those tags. Its requests keep only the user's own words, a one-line instruction, a short
output cap and stop strings at the tags it would echo. Any other local model (`--local-model`)
gets the agent's request unchanged.
"""

from __future__ import annotations

import re
from typing import Any

DEMO_MAX_OUTPUT_TOKENS = 64
DEMO_INSTRUCTION = "You are a tiny offline demo model. Answer in one or two short sentences."
# What the demo model starts to echo once it has answered: the reminder tags and the turn
# markers of the chat templates it may meet, and a run of blank lines.
DEMO_STOP = ("<system-reminder>", "</system-reminder>", "<start_of_turn>", "<|im_start|>", "\n\n\n")
_REMINDER = re.compile(r"<system-reminder>.*?(</system-reminder>|$)", re.DOTALL)
_DROPPED_KEYS = ("tools", "tool_choice", "parallel_tool_calls", "max_completion_tokens")

# Base URLs of the demo engines this process started.
_DEMO_ENGINES: set[str] = set()


def _key(base_url: str) -> str:
    return base_url.rstrip("/")


def register_demo_engine(base_url: str) -> None:
    """Requests to `base_url` are made brief from now on (`demo_request`)."""
    _DEMO_ENGINES.add(_key(base_url))


def forget_demo_engine(base_url: str) -> None:
    _DEMO_ENGINES.discard(_key(base_url))


def is_demo_engine(base_url: str) -> bool:
    return _key(base_url) in _DEMO_ENGINES


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _users_words(messages: list[dict[str, Any]]) -> str:
    """The newest user message with words of the user's own (reminders taken out)."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        words = _REMINDER.sub("", _text(message.get("content"))).strip()
        if words:
            return words
    return "Hello."


# req: FH5
def demo_request(wire: dict[str, Any]) -> dict[str, Any]:
    """The request as the demo model gets it: the instruction and the user's last words, no
    tools, at most DEMO_MAX_OUTPUT_TOKENS, stopping at the tags it would echo."""
    brief = {key: value for key, value in wire.items() if key not in _DROPPED_KEYS}
    brief["messages"] = [
        {"role": "system", "content": DEMO_INSTRUCTION},
        {"role": "user", "content": _users_words(list(wire.get("messages") or []))},
    ]
    brief["max_tokens"] = min(
        int(wire.get("max_tokens") or DEMO_MAX_OUTPUT_TOKENS), DEMO_MAX_OUTPUT_TOKENS
    )
    brief["stop"] = list(DEMO_STOP)
    return brief
