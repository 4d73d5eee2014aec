"""Token usage from whatever a provider sends, and an estimate when it sends nothing."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from wave_tui.llm.images import split_image_tokens
from wave_tui.llm.types import Usage

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text and code


def _int(value: Any) -> int:
    """A token count, or 0 for anything that is not one (X13: never fail on usage)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and value == value:  # not NaN
        return max(0, int(value))
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def _first(raw: Mapping[str, Any], *keys: str) -> int:
    for key in keys:
        n = _int(raw.get(key))
        if n:
            return n
    return 0


# req: F4
# req: X13
def parse_usage(raw: Any) -> Usage | None:
    """Usage in any of the shapes providers send (OpenAI, Anthropic-compatible, DeepSeek,
    llama.cpp). Best-effort: malformed fields count as 0, never an error."""
    if not isinstance(raw, Mapping):
        return None
    details = raw.get("prompt_tokens_details")
    details = details if isinstance(details, Mapping) else {}
    prompt = _first(raw, "prompt_tokens", "input_tokens")
    completion = _first(raw, "completion_tokens", "output_tokens")
    # req: PV8
    cache_read = _first(raw, "cache_read_input_tokens", "prompt_cache_hit_tokens") or _int(
        details.get("cached_tokens")
    )
    cache_write = _first(raw, "cache_creation_input_tokens") or _int(
        details.get("cache_write_tokens")
    )
    total = _int(raw.get("total_tokens")) or prompt + completion
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cache_read_tokens=cache_read,
        cache_creation_tokens=cache_write,
    )


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def estimate_prompt_tokens(body: Mapping[str, Any]) -> int:
    """Prompt tokens of a request body: its messages and tools, counted from characters; an
    image by its size, never by the characters of its base64."""
    sent = {"messages": body.get("messages") or [], "tools": body.get("tools") or []}
    text, images = split_image_tokens(sent)
    return estimate_tokens(json.dumps(text, ensure_ascii=False, separators=(",", ":"))) + images


def estimated_usage(body: Mapping[str, Any], reply_chars: int) -> Usage:  # req: PV9
    prompt = estimate_prompt_tokens(body)
    completion = (reply_chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        estimated=True,
    )
