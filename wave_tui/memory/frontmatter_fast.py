"""A fast path for the frontmatter nearly every rule file has: flat `key: value` lines and simple
block lists (YAML parsing of every rule file made the first request slow).

`parse_simple_yaml` returns exactly what `yaml.safe_load` returns for the documents it accepts,
and None for anything else, which then goes to the YAML parser. It accepts only a narrow subset
where the YAML result is certain: keys at column 0 made of letters, digits, `_` and `-`; values
that are plain scalars read as strings, plain decimal integers, YAML 1.1 booleans and nulls, or
one-line quoted strings without escapes; `key:` followed by `- item` lines of one indentation;
a one-line flow list of such scalars (`paths: ["src/**/*.ts", lib]`). Flow mappings, nested or
multi-line flow collections, anchors, tags,
block scalars, comments, continuation lines, tabs, floats, dates, signs, octal or sexagesimal
numbers — every case where YAML reads a plain-looking value differently — fall back.
"""

from __future__ import annotations

import re
from typing import Any

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
_ITEM_LINE = re.compile(r"( *)- +(.*)")
_DECIMAL = re.compile(r"0|[1-9][0-9]*")
# The first characters of YAML indicators, and of the implicit float, int, timestamp, merge and
# value types that this path does not resolve itself (a plain decimal integer is handled).
_NOT_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@`<=~.+0123456789")
_TRUE = frozenset({"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSE = frozenset({"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_NULL = frozenset({"null", "Null", "NULL", "~"})
_WORDS: dict[str, bool | None] = {
    **dict.fromkeys(_TRUE, True),
    **dict.fromkeys(_FALSE, False),
    **dict.fromkeys(_NULL, None),
}
_UNSET = object()


def _scalar(text: str) -> Any:
    """The value of a one-line scalar as YAML resolves it, or `_UNSET` when unsure."""
    value = text.rstrip(" ")
    if not value or "#" in value or ": " in value or value.endswith(":"):
        return _UNSET
    first = value[0]
    if first not in _NOT_PLAIN_START:  # the usual case: a plain string, or a keyword
        return _WORDS.get(value, value)
    if _DECIMAL.fullmatch(value):
        return int(value)
    if value == "~":
        return None
    if len(value) >= 2 and first == value[-1] and first in "'\"":
        inner = value[1:-1]
        # No escapes (double quotes) and no doubled quote (single quotes): the text as it is.
        return _UNSET if first in inner or "\\" in inner else inner
    return _UNSET


def _flow_list(text: str) -> list[Any] | None:
    """`[a, "b", 'c']` on one line, each item a scalar `_scalar` is sure of; None otherwise."""
    value = text.rstrip(" ")
    if not (value.startswith("[") and value.endswith("]")):
        return None
    inner = value[1:-1]
    if any(c in inner for c in "[]{}"):
        return None  # nested, or a mapping: the YAML parser's
    if not inner.strip(" "):
        return []
    items: list[Any] = []
    for piece in inner.split(","):
        item = piece.strip(" ")
        # A quote must open and close one piece (a comma inside quotes was split here); a
        # plain item may not hold what ends a plain scalar in flow context.
        if not item or (item[0] in "'\"" and (len(item) < 2 or item[-1] != item[0])):
            return None
        if item[0] not in "'\"" and ("'" in item or '"' in item):
            return None
        scalar = _scalar(item)
        if scalar is _UNSET:
            return None
        items.append(scalar)
    return items


def parse_simple_yaml(raw: str) -> dict[str, Any] | None:
    """The mapping `yaml.safe_load(raw)` gives when `raw` is in the simple subset, else None."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n")
    # Printable (in Python's stricter sense) leaves out every character YAML rejects or reads as a
    # line break, and those `str.splitlines` splits on; also tabs, no-break spaces and a BOM.
    if not raw.replace("\n", "").isprintable():
        return None
    data: dict[str, Any] = {}
    items: list[Any] | None = None  # the list being filled under the last `key:`
    indent: str | None = None
    key = ""
    for line in raw.split("\n"):
        if not line:
            continue
        if items is not None:
            item = _ITEM_LINE.fullmatch(line)
            if item is not None:
                if indent is None:
                    indent = item.group(1)
                elif item.group(1) != indent:
                    return None
                value = _scalar(item.group(2))
                if value is _UNSET:
                    return None
                items.append(value)
                continue
            if items:
                data[key] = items
            items = None
        found = _KEY_LINE.fullmatch(line)
        if found is None:
            return None
        key, text = found.groups()
        if key in _WORDS:
            return None
        if text is None or not text.strip(" "):
            data[key] = None
            items, indent = [], None
            continue
        if text.startswith("["):
            flow = _flow_list(text)
            if flow is None:
                return None
            data[key] = flow
            continue
        value = _scalar(text)
        if value is _UNSET:
            return None
        data[key] = value
    if items:
        data[key] = items
    return data or None
