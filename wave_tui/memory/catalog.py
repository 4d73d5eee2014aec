"""Every memory entry the user can see and delete, in one list (M3): AGENTS.md items, auto-memory
topic files and rules (with why each rule is or is not active).

Ids are readable and stable while the file is unchanged: `project:AGENTS.md#3`,
`user:AGENTS.md#1`, `auto:<path relative to the memory dir>`, `rule:<scope>:<rule id>`
(`rule:<scope>@claude:<rule id>` for rules under a `.claude/rules` folder).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.paths import MEMORY_INDEX_FILENAME, WavePaths
from wave_tui.memory.agents_md import (
    Warn,
    project_memory_files,
    read_memory_text,
    user_memory_file,
)
from wave_tui.memory.decoding import decode_memory_bytes
from wave_tui.memory.entries import (
    EntryError,
    ItemSpan,
    delete_item,
    item_spans,
    locked_edit,
)
from wave_tui.memory.frontmatter import parse_frontmatter
from wave_tui.memory.imports import expand_imports
from wave_tui.memory.references import missing_references
from wave_tui.memory.rules import Rule, RuleSet, discover_rules

EntryScope = Literal["project", "user", "auto", "rule"]
Clock = Callable[[], datetime]
SECONDS_PER_DAY = 86_400
STALE_AFTER_DAYS = 1
_HEADING_RE = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


class UnknownEntryError(EntryError):
    """No entry has the given id."""


# Slots: no `__dict__` per entry, so 10,000 entries are half the objects for the collector.
@dataclass(frozen=True, slots=True)
class MemoryEntry:
    id: str
    scope: EntryScope
    path: Path
    title: str
    type: str | None
    age_days: int | None
    body: str
    status: str | None = None  # rules only: always | conditional | inactive
    reason: str | None = None  # rules only: "conditional: src/api/**/*.ts", …
    # Only auto memories go stale: they are point-in-time observations (T1). AGENTS.md items and
    # rules are instructions, in force until someone edits them, whatever their age.
    stale: bool = False
    item_index: int | None = None  # list items only
    imported_by: str | None = None  # an `@path` import: the importing file's label (MX3)
    missing_refs: tuple[str, ...] = ()  # cited files/lines/symbols no longer there (MX6)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path)
        del data["item_index"]
        if self.scope != "rule":
            del data["status"], data["reason"]
        if self.imported_by is None:
            del data["imported_by"]
        if self.missing_refs:
            data["missing_refs"] = list(self.missing_refs)
        else:
            del data["missing_refs"]
        return data


def _utc_now() -> datetime:
    return datetime.now(UTC)


def age_in_days(path: Path, now: datetime) -> int | None:
    """floor((now − mtime) / 1 day); clock skew (negative) counts as today."""
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    return _age(mtime, now)


def _age(mtime: float, now: datetime) -> int:
    return max(0, math.floor((now.timestamp() - mtime) / SECONDS_PER_DAY))


def _label(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def free_text(text: str, items: list[ItemSpan] | None = None) -> str:
    """The file's instructions that are not list items (headings alone do not count).

    `items` are the file's `item_spans`, when the caller has them already."""
    if items is None:
        items = item_spans(text)
    inside = {n for _index, start, end, _text in items for n in range(start, end)}
    lines = text.splitlines()
    rest = [line for n, line in enumerate(lines) if n not in inside]
    if all(not line.strip() or line.lstrip().startswith("#") for line in rest):
        return ""
    return "\n".join(rest).strip("\n")


def _items(
    scope: EntryScope,
    label: str,
    path: Path,
    now: datetime,
    imported_by: str | None = None,
    text: str | None = None,
) -> list[MemoryEntry]:
    """The file's entries; `text` is its content when the caller has read it already."""
    if text is None:
        text = read_memory_text(path, lambda _m: None)
    if not text:
        return []
    age = age_in_days(path, now)
    items = item_spans(text)
    prose = free_text(text, items)
    # Prose is loaded every turn too: the user must see it (M3), as one whole-text entry.
    whole = (
        [
            MemoryEntry(
                id=f"{scope}:{label}",
                scope=scope,
                path=path,
                title=f"{label}: text outside list items",
                type=None,
                age_days=age,
                body=prose,
                imported_by=imported_by,
            )
        ]
        if prose
        else []
    )
    prefix = f"{scope}:{label}#"
    return whole + [
        MemoryEntry(
            id=f"{prefix}{index}",
            scope=scope,
            path=path,
            # No line break of any kind in printable text: no list of lines to make.
            title=body if body.isprintable() else body.splitlines()[0],
            type=None,
            age_days=age,
            body=body,
            item_index=index,
            imported_by=imported_by,
        )
        for index, _start, _end, body in items
    ]


def _file_entries(
    scope: EntryScope, label: str, path: Path, paths: WavePaths, now: datetime
) -> list[MemoryEntry]:
    """A memory file's entries, then those of the files it imports (MX3), from one read."""
    text = read_memory_text(path, lambda _m: None)
    if not text:
        return []
    entries = _items(scope, label, path, now, text=text)
    if "@" in text:  # an import line names its file after an `@`: none, nothing to expand
        entries += _imported_items(scope, path, text, paths, now)
    return entries


def _imported_items(
    scope: EntryScope, importer: Path, text: str, paths: WavePaths, now: datetime
) -> list[MemoryEntry]:
    """Entries of the files `importer` (whose content is `text`) imports, each right under its
    importer (MX3)."""
    entries: list[MemoryEntry] = []
    seen: set[Path] = set()
    for imported in expand_imports(importer, text, paths.home).imported:
        if imported.path in seen:
            continue
        seen.add(imported.path)
        by = _label(imported.importer, paths.project_root)
        label = _label(imported.path, paths.project_root)
        entries += _items(scope, label, imported.path, now, imported_by=by)
    return entries


def _topic_files(memory_dir: Path) -> list[tuple[str, str]]:
    """(path relative to the memory dir, full path) of every topic file, as
    `sorted(memory_dir.rglob("*.md"))` finds them bar MEMORY.md, without a `Path` per file."""
    if not memory_dir.is_dir():
        return []
    found: list[tuple[list[str], str, str]] = []

    def walk(folder: str, prefix: str) -> None:
        try:
            with os.scandir(folder) as scan:
                children = list(scan)
        except OSError:
            return
        for child in children:
            name = child.name
            try:
                if name.endswith(".md") and child.is_file():
                    relative = prefix + name
                    if relative != MEMORY_INDEX_FILENAME:
                        found.append((relative.split("/"), relative, child.path))
                if child.is_dir(follow_symlinks=False):  # as rglob: no symlinked folders
                    walk(child.path, f"{prefix}{name}/")
            except OSError:
                continue

    walk(str(memory_dir), "")
    # By path components, as `Path` sorts: `a/b.md` comes before `a-b.md`.
    found.sort(key=lambda f: f[0])
    return [(relative, full) for _parts, relative, full in found]


def _read_topic(path: str) -> tuple[str, float | None]:
    """The file's text ("" when it cannot be read or is binary) and its mtime, from one open."""
    try:
        with open(path, "rb") as fh:
            mtime: float | None = os.fstat(fh.fileno()).st_mtime
            data = fh.read()
    except OSError:
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            mtime = None
        return "", mtime
    return decode_memory_bytes(data).text or "", mtime


def _topic_entry(relative: str, full: str, memory_dir: Path, now: datetime) -> MemoryEntry:
    text, mtime = _read_topic(full)
    fm = parse_frontmatter(text)
    heading = _HEADING_RE.search(fm.body)
    path = memory_dir / relative
    title = fm.get_str("name") or (heading.group(1) if heading else "") or path.stem
    age = None if mtime is None else _age(mtime, now)
    return MemoryEntry(
        id=f"auto:{relative}",
        scope="auto",
        path=path,
        title=title,
        type=fm.get_str("type") or None,
        age_days=age,
        body=text,
        stale=age is not None and age > STALE_AFTER_DAYS,
    )


def rule_entry_id(rule: Rule) -> str:
    """`rule:project:api.md`; a rule from a `.claude/rules` root is `rule:project@claude:api.md`,
    so a rule it overrides (or that overrides it) never shares its id."""
    origin = "@claude" if rule.root.parent.name == ".claude" else ""
    return f"rule:{rule.scope}{origin}:{rule.id}"


def _rule_entries(rules: RuleSet, now: datetime) -> list[MemoryEntry]:
    entries = []
    for rule in rules.all:
        age = age_in_days(rule.path, now)
        entries.append(
            MemoryEntry(
                id=rule_entry_id(rule),
                scope="rule",
                path=rule.path,
                title=rule.name or rule.description or rule.id,
                type=None,
                age_days=age,
                body=rule.body,
                status=rule.status,
                reason=f"{rule.status}: {rule.reason}",
            )
        )
    return entries


def build_catalog(
    paths: WavePaths,
    clock: Clock = _utc_now,
    warn: Warn | None = None,
    rules: RuleSet | None = None,
) -> list[MemoryEntry]:
    """Project items, user items, auto-memory topic files, then rules."""
    now = clock()
    entries: list[MemoryEntry] = []
    for memory_file in project_memory_files(paths):
        label = _label(memory_file, paths.project_root)
        entries += _file_entries("project", label, memory_file, paths, now)
    user_file = user_memory_file(paths)
    entries += _file_entries("user", user_file.name, user_file, paths, now)
    memory_dir = paths.memory_dir
    entries += [_topic_entry(rel, full, memory_dir, now) for rel, full in _topic_files(memory_dir)]
    rule_set = rules or discover_rules(paths, warn or (lambda _m: None))
    entries += _rule_entries(rule_set, now)
    return entries


def with_missing_refs(entries: list[MemoryEntry], project_root: Path) -> list[MemoryEntry]:
    """The entries, each auto memory and AGENTS.md item marked with what it cites that is gone
    (MX6). Rules are left alone: they name patterns, not facts. The browser calls this too."""
    # req: MX6
    checked = {e.id: e.body for e in entries if e.scope != "rule"}
    missing = missing_references(checked, project_root)
    return [
        replace(e, missing_refs=tuple(missing[e.id])) if e.id in missing else e for e in entries
    ]


def find_entry(paths: WavePaths, entry_id: str) -> MemoryEntry:
    for entry in build_catalog(paths):
        if entry.id == entry_id:
            return entry
    raise UnknownEntryError(f"no memory entry with id '{entry_id}'")


def _mentions(line: str, relative: str) -> bool:
    """The line names exactly this file (its whole path relative to the memory dir, `./`
    allowed): `a.md` is not `data.md`, `sub/a.md` or `other/a.md`."""
    pattern = rf"(?<![\w./-])(?:\./)?{re.escape(relative)}(?![\w/-])"
    return re.search(pattern, line) is not None


def remove_index_pointer(index: Path, relative: str) -> None:
    """Drop the MEMORY.md line(s) that link to or mention the topic file."""

    def update(current: str | None) -> str | None:
        if current is None:
            return None
        lines = re.findall(r"[^\n]*\n|[^\n]+$", current)
        kept = [line for line in lines if not _mentions(line, relative)]
        return "".join(kept) if len(kept) != len(lines) else None

    locked_edit(index, update)


def delete_entry(paths: WavePaths, entry_id: str, listed: MemoryEntry | None = None) -> MemoryEntry:
    """Delete one entry and return it as it was. Raises UnknownEntryError / EntryChangedError.

    `listed` is the entry as a UI showed it: list-item ids are positional, so deleting by id
    after the file changed could hit a different item — with `listed`, the item whose text the
    user saw is removed, or nothing is (EntryChangedError)."""
    entry = listed if listed is not None and listed.id == entry_id else find_entry(paths, entry_id)
    if entry.scope in ("project", "user") and entry.item_index is None:
        raise EntryError(
            f"{entry.path.name}: free text is not a list item, so it is not deleted on its own; "
            "edit the file instead (e in the memory browser opens it in $EDITOR)"
        )
    if entry.item_index is not None:
        delete_item(entry.path, entry.item_index, entry.body)
    elif entry.scope == "auto":
        relative = entry.id.removeprefix("auto:")
        _unlink(entry.path)
        remove_index_pointer(paths.memory_index, relative)
    else:
        _unlink(entry.path)
    return entry


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise EntryError(f"{path}: cannot delete ({exc.strerror or exc})") from exc
