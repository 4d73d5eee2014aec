"""A request body's bytes, exactly as httpx's `json=` would encode them, each big string of the
messages encoded once for as long as the same string comes back.

Every request repeats the whole history before it, the same message dicts request after request
(`llm/wire.py` `WireHistory`): each message is encoded once, and a request at 5,000 turns encodes
its new tail and joins the rest. The memory reminder (10k rules: ~390 kB) and long file reads
are the same `str` objects even in a message made anew: each such string is escaped once (the
message is encoded with a placeholder in its place, and the cached escaped bytes are put where
the placeholder came out). Both caches know an object by identity (holding it, so its id cannot
be reused) and keep only what the last body had. The bytes are the same
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
    """One per model client: the bytes of its last body's messages, and of their big strings."""

    def __init__(self) -> None:
        self._placeholder = f"\0wave-{secrets.token_hex(8)}\0"
        self._mark = plain_json(self._placeholder)
        # By identity, each with the object it was made from (so its id cannot be reused).
        self._messages: dict[int, tuple[object, bytes]] = {}
        self._strings: dict[int, tuple[str, bytes]] = {}

    # req: SP5
    def encode(self, body: dict[str, Any]) -> bytes:
        """`plain_json(body)`, the messages of the last body that come back (the same objects:
        `llm/wire.py` `WireHistory`) not encoded again; a long session encodes its new tail."""
        messages = body.get("messages")
        if not isinstance(messages, list):
            return plain_json(body)
        pieces = plain_json({**body, "messages": self._placeholder}).split(self._mark)
        if len(pieces) != 2:  # a placeholder where none was put: never split on it
            self._messages, self._strings = {}, {}
            return plain_json(body)
        known, kept = self._messages, {}
        strings: dict[int, tuple[str, bytes]] = {}
        encoded: list[bytes] = []
        for message in messages:
            hit = known.get(id(message))
            if hit is None or hit[0] is not message:
                hit = (message, self._one(message, strings))
            kept[id(message)] = hit
            encoded.append(hit[1])
        self._messages = kept
        if strings:
            self._strings = strings
        return b"".join((pieces[0], b"[", b",".join(encoded), b"]", pieces[1]))

    def _one(self, message: object, strings: dict[int, tuple[str, bytes]]) -> bytes:
        """One message's bytes, each big string of it escaped once for as long as it comes back."""
        big: list[str] = []
        swapped = self._swap(message, big) if isinstance(message, dict) else message
        if not big:
            return plain_json(message)
        pieces = plain_json(swapped).split(self._mark)
        if len(pieces) != len(big) + 1:  # the placeholder inside the message itself
            return plain_json(message)
        out = [pieces[0]]
        for text, after in zip(big, pieces[1:], strict=True):
            hit = strings.get(id(text)) or self._strings.get(id(text))
            if hit is None or hit[0] is not text:
                hit = (text, encode_basestring(text).encode())
            strings[id(text)] = hit
            out += (hit[1], after)
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
