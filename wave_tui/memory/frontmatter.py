"""YAML frontmatter of memory files and rules, parsed with a real YAML parser (R6, F13)."""

from __future__ import annotations

import re
from dataclasses import field
from pathlib import Path
from typing import Any

from wave_tui.config.records import record
from wave_tui.memory.frontmatter_fast import parse_simple_yaml

FENCE = "---"
# Characters that make a plain YAML scalar fail (`*` alias, `{` flow mapping, `&` anchor, …).
# Claude Code quotes values holding them and parses again; teams' rule files rely on it (MX4).
_SPECIAL_CHARS = re.compile(r"[*{}&!%@`]")
_KEY_VALUE_RE = re.compile(r"^(\s*[A-Za-z_][\w-]*:[ \t]+)(\S.*?)\s*$")
_LIST_ITEM_RE = re.compile(r"^(\s*-[ \t]+)(\S.*?)\s*$")
# A node that starts with a tag (`!!python/object/apply:…`, `!x`, after an optional anchor) is
# YAML's own business: safe_load refuses what it cannot build, and quoting it would turn the
# refusal into a silent string.
_TAGGED = re.compile(r"^(?:&\S*\s+)?!")
HEAD_BYTES = 8192  # enough for any sane frontmatter; the manifest reads only this much (F12)


@record(bulk=True)
class Frontmatter:
    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    has_frontmatter: bool = False
    error: str | None = None  # one line: what is wrong with the frontmatter

    def get_str(self, key: str) -> str:
        return value_text(self.data.get(key))


def value_text(value: Any) -> str:
    """A frontmatter value as one line of text ("" when absent)."""
    if value is None:
        return ""
    return " ".join(str(value).split()) if isinstance(value, str) else str(value)


def split_fence(text: str) -> tuple[str, str] | None:
    """(the frontmatter's raw text, the body) when `text` starts with a `---` fenced block: for
    readers that parse the raw text their own way when YAML refuses it (commands, agents)."""
    if text.startswith("---\n"):
        # The usual shape, found without splitting the file into lines: when no `---` comes
        # before the first "\n---\n", no earlier line can be the fence, however lines split.
        end = text.find("\n---\n", 3)
        if end >= 0 and "---" not in text[4:end]:
            return text[4 : end + 1], text[end + 5 :]
    elif text[:1] not in ("-", "\ufeff") and not text[:1].isspace():
        return None  # the first line cannot strip to `---`
    return _split_lines(text)


_split = split_fence


def _split_lines(text: str) -> tuple[str, str] | None:
    """`_split` line by line: any fence line (spaces around `---`, CRLF, a BOM before it)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").strip() != FENCE:
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n").strip() == FENCE:
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    return None


def _needs_quotes(value: str) -> bool:
    if value[0] in "'\"[|>#" or (value[0] == "{" and value.endswith("}")):
        return False  # already quoted, a flow list/mapping, a block scalar or a comment
    if _TAGGED.match(value):
        return False
    return _SPECIAL_CHARS.search(value) is not None


def quote_special_values(raw: str) -> str:
    """Double-quote plain values and list items that hold YAML special characters."""
    out: list[str] = []
    for line in raw.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        found = _KEY_VALUE_RE.match(body) or _LIST_ITEM_RE.match(body)
        if found is not None and _needs_quotes(found.group(2)):
            quoted = found.group(2).replace("\\", "\\\\").replace('"', '\\"')
            line = f'{found.group(1)}"{quoted}"{line[len(body) :]}'
        out.append(line)
    return "".join(out)


# req: MX4
def _load(raw: str) -> Any:
    import yaml  # on first use: a run that reads only simple frontmatter never loads the parser

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~5x faster
    try:
        return yaml.load(raw, Loader=loader)
    except yaml.YAMLError as first:
        retry = quote_special_values(raw)
        if retry == raw:
            raise
        try:
            return yaml.load(retry, Loader=loader)
        except yaml.YAMLError:
            raise first from None  # the file's own error is the one worth reporting


def _parse_yaml(raw: str) -> tuple[Any, str | None]:
    """(the data, None), or (None, one line saying why the YAML does not parse)."""
    simple = parse_simple_yaml(raw)  # what nearly every rule file holds, ~20x faster than YAML
    if simple is not None:
        return simple, None
    import yaml

    try:
        data = _load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        where = f" (line {mark.line + 2})" if mark is not None else ""
        return None, f"invalid YAML{where}: {problem}"
    if isinstance(data, dict):  # YAML keys may be numbers or booleans; the simple path's are str
        data = {str(k): v for k, v in data.items()}
    return data, None


# req: F13
# req: R6
# req: X4
def parse_frontmatter(text: str) -> Frontmatter:
    """Parse a document's frontmatter. Never raises: problems come back in `error`."""
    return Frontmatter(*split_frontmatter(text))


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, bool, str | None]:
    """`parse_frontmatter`'s fields (data, body, has_frontmatter, error), without the object: for
    rule discovery, which parses every rule file of a session at once."""
    split = _split(text)
    if split is None:
        if text.lstrip("\ufeff").startswith(FENCE + "\n") or text.startswith(FENCE + "\r\n"):
            return {}, text, False, "frontmatter has no closing '---' line"
        return {}, text, False, None
    raw, body = split
    data, error = _parse_yaml(raw) if raw.strip() else ({}, None)
    if error is not None:
        return {}, body, True, error
    if data is None:
        return {}, body, True, None
    if not isinstance(data, dict):
        return {}, body, True, "frontmatter is not a mapping of keys to values"
    return data, body, True, None


def read_frontmatter_head(path: Path, max_bytes: int = HEAD_BYTES) -> Frontmatter:
    """Parse the frontmatter from the head of a file only (the body is not returned in full)."""
    with open(path, "rb") as fh:
        head = fh.read(max_bytes)
    return parse_frontmatter(head.decode("utf-8", errors="replace"))
