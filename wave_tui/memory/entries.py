"""Manual memory entries: the top-level list items of an AGENTS.md (M1, M2, M3, M4, M5, X2).

Edits hold the file's cross-process lock (the same one `locked_update` takes) and replace the file
atomically. Text is read and written without newline translation, so deleting an item leaves
every other byte of the file — CRLF line endings included — exactly as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from wave_tui.config.fileio import locked_update
from wave_tui.config.records import record
from wave_tui.memory.secrets import secret_refusal

_ITEM_RE = re.compile(r"^( {0,3})([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
_EMPHASIS_RE = re.compile(r"[*_`~]+")
_TRAILING_PUNCT = ".,;:!?。，；：！？…"


class EntryError(Exception):
    """A clean, user-facing failure of a memory edit."""


class EntryChangedError(EntryError):
    """The item to delete is no longer in the file as it was shown."""


@record
class Item:
    index: int  # 1-based position among the file's top-level items
    start_line: int  # 0-based, first line of the item
    end_line: int  # 0-based, exclusive
    text: str  # marker removed, continuation lines dedented, joined with "\n"


@record
class AddResult:
    added: bool
    duplicate_of: str | None = None
    path: Path | None = None


def split_lines(text: str) -> list[str]:
    """Lines with their endings kept; only `\\n` separates lines (`\\r` stays with its line)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


# An `Item` as a plain tuple (index, start_line, end_line, text): of ints and a string, so the
# garbage collector stops tracking it at once — the items of a 10,000-item file never make it
# scan the whole heap when the memory browser opens.
ItemSpan = tuple[int, int, int, str]


def list_items(text: str) -> list[Item]:
    """Top-level list items (`-`, `*`, `+`, `1.`) with their indented continuation lines.

    Blank lines belong to an item only when more of the item follows; fenced code is skipped.
    """
    return [Item(*span) for span in item_spans(text)]


def item_spans(text: str) -> list[ItemSpan]:
    """`list_items` as tuples."""
    # The lines of `split_lines` without their endings, by `str.split`: a 10,000-item file is
    # listed each time the memory browser opens.
    lines = text.split("\n")
    if not lines[-1]:
        lines.pop()
    if "\r" in text:
        lines = [line.rstrip("\r") for line in lines]
    fence = _FENCE_RE.match if "```" in text or "~~~" in text else None
    item_match = _ITEM_RE.match
    count = len(lines)
    items: list[ItemSpan] = []
    i = 0
    in_fence = False
    while i < count:
        line = lines[i]
        if fence is not None and fence(line):
            in_fence = not in_fence
            i += 1
            continue
        found = None if in_fence else item_match(line)
        if found is None:
            i += 1
            continue
        item_indent = len(found.group(1))
        first = (found.group(3) or "").strip()
        parts: list[str] | None = None  # only an item with continuation lines needs a join
        end = i + 1
        j = i + 1
        while j < count:
            nxt = lines[j]
            if not nxt.strip():
                j += 1
                continue
            if len(nxt) - len(nxt.lstrip(" \t")) <= item_indent:
                break
            if parts is None:
                parts = [first]
            parts.extend("" for _ in range(end, j))  # blank lines inside the item
            parts.append(nxt.strip())
            end = j = j + 1
        body = first if parts is None else "\n".join(parts).strip()
        items.append((len(items) + 1, i, end, body))
        i = end
    return items


def normalise(text: str) -> str:
    """Comparison key for duplicates: casefold, no emphasis, collapsed spaces, no final punctuation."""
    plain = _EMPHASIS_RE.sub("", text).casefold()
    plain = " ".join(plain.split())
    return plain.rstrip(_TRAILING_PUNCT + " ")


def locked_edit(path: Path, update: Callable[[str | None], str | None]) -> str | None:
    """`locked_update` with a memory-specific error for files that are not UTF-8."""
    try:
        return locked_update(path, update)
    except UnicodeDecodeError as exc:
        raise EntryError(f"{path}: not valid UTF-8; not editing it") from exc


def format_item(text: str, newline: str = "\n") -> str:
    lines = [line.rstrip() for line in text.strip().splitlines()]
    body = (newline + "  ").join(line for line in lines)
    return f"- {body}{newline}"


# req: M5
def add_entry(path: Path, text: str) -> AddResult:
    """Append `- text` unless an equivalent item exists (M4); creates file and folders (M5)."""
    if not text.strip():
        raise EntryError("nothing to save: the entry is empty")
    refusal = secret_refusal(text)
    if refusal:
        raise EntryError(refusal)
    key = normalise(text)
    duplicate: list[str] = []

    def update(current: str | None) -> str | None:
        existing = current or ""
        for item in list_items(existing):
            if normalise(item.text) == key:
                duplicate.append(item.text)
                return None
        newline = "\r\n" if "\r\n" in existing else "\n"
        if existing and not existing.endswith("\n"):
            existing += newline
        return existing + format_item(text, newline)

    locked_edit(path, update)
    if duplicate:
        return AddResult(added=False, duplicate_of=duplicate[0], path=path)
    return AddResult(added=True, path=path)


def delete_item(path: Path, item: int, expected_text: str) -> Item:
    """Remove exactly the lines of item `item` (1-based) if its text is still `expected_text`.

    When items before it changed meanwhile, the one item with that text is removed instead;
    when no such item is left, nothing changes and EntryChangedError is raised.
    """
    removed: list[Item] = []

    def update(current: str | None) -> str | None:
        if current is None:
            raise EntryChangedError(f"{path}: file no longer exists")
        items = list_items(current)
        target = next((it for it in items if it.index == item and it.text == expected_text), None)
        if target is None:
            same = [it for it in items if it.text == expected_text]
            if len(same) != 1:
                raise EntryChangedError(f"{path}: entry changed since it was listed; not deleted")
            target = same[0]
        lines = split_lines(current)
        removed.append(target)
        kept = lines[: target.start_line] + lines[target.end_line :]
        return "".join(kept)

    locked_edit(path, update)
    return removed[0]
