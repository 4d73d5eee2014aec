"""A request body's bytes, exactly as httpx's `json=` would encode them, each big string of the
messages encoded once for as long as the same string comes back.

Every request repeats the memory reminder (10k rules: ~390 kB) and every long file read before
it, the same `str` objects request after request; JSON-escaping them was most of what a big memory
cost each request (`tests/bench/test_bench_request_rules.py`). Here each such string is escaped
once: the body is encoded with a placeholder in its place, and the cached escaped bytes are put
where the placeholder came out. A string is known by identity (the cache holds it, so its id
cannot be reused) and the cache keeps only the strings of the last body. The bytes are the same
as `json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()`
(`tests/llm/test_body_json.py`); anything unexpected falls back to exactly that.
"""

from __future__ import annotations

import json
import secrets
from json.encoder import encode_basestring
from typing import Any

BIG_STRING = 16 * 1024  # characters: shorter strings are cheaper to escape than to look up


def plain_json(body: Any) -> bytes:
    """httpx's own encoding of a `json=` body."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


class BodyEncoder:
    """One per model client: the escaped bytes of the big strings of its last body."""

    def __init__(self) -> None:
        self._placeholder = f"\0wave-{secrets.token_hex(8)}\0"
        self._mark = plain_json(self._placeholder)
        self._cache: dict[int, tuple[str, bytes]] = {}

    def encode(self, body: dict[str, Any]) -> bytes:
        messages = body.get("messages")
        if not isinstance(messages, list):
            return plain_json(body)
        big: list[str] = []
        swapped = [self._swap(m, big) if isinstance(m, dict) else m for m in messages]
        if not big:
            self._cache = {}
            return plain_json(body)
        pieces = plain_json({**body, "messages": swapped}).split(self._mark)
        if len(pieces) != len(big) + 1:  # a placeholder where none was put: never split on it
            self._cache = {}
            return plain_json(body)
        cache, kept = self._cache, {}
        out = [pieces[0]]
        for text, after in zip(big, pieces[1:], strict=True):
            hit = cache.get(id(text))
            if hit is None or hit[0] is not text:
                hit = (text, encode_basestring(text).encode())
            kept[id(text)] = hit
            out += (hit[1], after)
        self._cache = kept
        return b"".join(out)

    def _swap(self, message: dict[str, Any], big: list[str]) -> dict[str, Any]:
        """The message with each big text replaced by the placeholder (in encoding order)."""
        content = message.get("content")
        if type(content) is str:
            if len(content) < BIG_STRING:
                return message
            big.append(content)
            return {**message, "content": self._placeholder}
        if type(content) is not list:
            return message
        parts: list[Any] | None = None
        for index, part in enumerate(content):
            if type(part) is not dict:
                continue
            text = part.get("text")
            if type(text) is not str or len(text) < BIG_STRING:
                continue
            if parts is None:
                parts = list(content)
            big.append(text)
            parts[index] = {**part, "text": self._placeholder}
        return message if parts is None else {**message, "content": parts}
