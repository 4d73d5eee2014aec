"""Asking the fast model for a JSON verdict: one request at temperature 0, and the JSON value cut
out of its reply (a model may wrap it in prose or a code fence).

The rule check (MR3), the conflict judge (MM2) and consolidation's same-fact question (MM5) each
ask this way; each reads only the entries its question named, so a reply cannot invent any.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol

JsonShape = Literal["object", "array"]
_BRACKETS: dict[JsonShape, tuple[str, str]] = {"object": ("{", "}"), "array": ("[", "]")}


class ChatClient(Protocol):
    async def stream_chat(self, body: dict[str, Any]) -> Any: ...


def verdict_request(model: str, system: str, ask: str, max_tokens: int) -> dict[str, Any]:
    """The chat body of one question."""
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": ask},
        ],
        "temperature": 0,
        "max_tokens": max_tokens,
    }


async def answer_of(client: ChatClient, body: dict[str, Any]) -> str:
    """The reply's text ('' when it has none)."""
    reply = await client.stream_chat(body)
    return str(getattr(reply, "content", "") or "")


def json_in(answer: str, shape: JsonShape) -> Any:
    """The JSON object or array from the first opening bracket to the last closing one; None when
    there is none or it does not parse."""
    opening, closing = _BRACKETS[shape]
    start, end = answer.find(opening), answer.rfind(closing)
    if start < 0 or end <= start:
        return None
    try:
        return json.loads(answer[start : end + 1])
    except ValueError:
        return None
