"""Frontmatter of commands, skills and agents as Claude Code reads it: strict YAML first, then
line by line when YAML refuses it.

Plugins in the wild write `description: Use this agent when: …` unquoted (a `: ` YAML reads as a
nested mapping) and follow it with `<example>` blocks at column 0. Claude Code loads those
files, so the fallback takes each top-level `key: value` line with its value verbatim to the end
of the line, and every following line that is indented, inside an open `<tag>` block, or not a
`key:` line at all, as the value's continuation — until the next top-level key. A file that
still yields no key keeps YAML's error: one warning naming it, never a silent drop.
"""

from __future__ import annotations

import re
from typing import Any

from wave_tui.memory.frontmatter import Frontmatter, parse_frontmatter, split_fence
from wave_tui.memory.frontmatter_fast import parse_simple_yaml

_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*):(?:[ \t]+(.*?))?\s*$")
_UNREADABLE = object()
_OPEN_TAG = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^<>]*)?>")
_CLOSE_TAG = re.compile(r"</([A-Za-z][\w-]*)>")
# Inside an open `<tag>` block a `word:` line is text (`user: …`, `Context: …`), unless it is
# one of the keys these files use: a tag left unclosed in prose cannot swallow the rest.
_KNOWN_KEYS = frozenset(
    {
        "name",
        "description",
        "model",
        "tools",
        "color",
        "allowed-tools",
        "argument-hint",
        "disable-model-invocation",
        "user-invocable",
        "license",
        "version",
        "hide-from-slash-command-tool",
    }
)


# req: PH4
def parse_lenient(text: str) -> Frontmatter:
    """`parse_frontmatter`, with the line-based reading when strict YAML refuses the block."""
    parsed = parse_frontmatter(text)
    if parsed.error is None or not parsed.has_frontmatter:
        return parsed
    split = split_fence(text)
    if split is None:
        return parsed
    data = read_lines(split[0])
    if not data or any(value is _UNREADABLE for value in data.values()):
        return parsed
    return Frontmatter(data, split[1], True, None)


def read_lines(raw: str) -> dict[str, Any]:
    """Top-level `key: value` lines, each value verbatim with its continuation lines."""
    data: dict[str, Any] = {}
    key: str | None = None
    lines: list[str] = []
    open_tags: list[str] = []

    def close() -> None:
        if key is not None:
            data[key] = _value(key, lines)

    for line in raw.replace("\r\n", "\n").split("\n"):
        found = _TOP_KEY.match(line)
        if found is not None and (not open_tags or found.group(1) in _KNOWN_KEYS):
            open_tags.clear()
            close()
            key, lines = found.group(1), [found.group(2) or ""]
        elif key is not None:
            lines.append(line)
        else:
            continue  # text before the first key: not part of any value
        _follow_tags(line, open_tags)
    close()
    return data


def _follow_tags(line: str, open_tags: list[str]) -> None:
    """Keep the stack of `<tag>` blocks left open (a key-like `user: …` inside is text)."""
    events = sorted(
        [(m.start(), True, m.group(1)) for m in _OPEN_TAG.finditer(line)]
        + [(m.start(), False, m.group(1)) for m in _CLOSE_TAG.finditer(line)]
    )
    for _pos, opening, tag in events:
        if opening:
            open_tags.append(tag)
        elif tag in open_tags:
            del open_tags[len(open_tags) - 1 - open_tags[::-1].index(tag) :]


def _value(key: str, lines: list[str]) -> Any:
    """One line: what YAML would make of it when that is certain (a flow list such as
    `tools: ["Read", "Grep"]`, a boolean), else the text; several lines: the text, joined."""
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) == 1:
        line = f"{key}: {lines[0]}"
        simple = parse_simple_yaml(line)
        if simple is not None and key in simple:
            return simple[key]
        if lines[0].startswith(("[", "{")):
            return _collection(line, key)  # a broken list is no prose: YAML's error stands
        return _unquote(lines[0])
    return "\n".join(line.strip() for line in lines).strip()


def _collection(line: str, key: str) -> Any:
    import yaml

    try:
        loaded = yaml.safe_load(line)
    except yaml.YAMLError:
        return _UNREADABLE
    return loaded.get(key) if isinstance(loaded, dict) else _UNREADABLE


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
