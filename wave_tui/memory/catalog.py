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
from dataclasses import asdict, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.paths import MEMORY_INDEX_FILENAME, WavePaths
from wave_tui.config.records import record
from wave_tui.memory.agents_md import (
    Warn,
    project_memory_files,
    read_memory_text,
    user_memory_file,
)
from wave_tui.memory.entries import EntryError, delete_item, list_items, locked_edit
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


@record
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
    return max(0, math.floor((now.timestamp() - mtime) / SECONDS_PER_DAY))


def _label(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def free_text(text: str) -> str:
    """The file's instructions that are not list items (headings alone do not count)."""
    items = list_items(text)
    inside = {n for item in items for n in range(item.start_line, item.end_line)}
    lines = text.splitlines()
    rest = [line for n, line in enumerate(lines) if n not in inside]
    if all(not line.strip() or line.lstrip().startswith("#") for line in rest):
        return ""
    return "\n".join(rest).strip("\n")


def _items(
    scope: EntryScope, label: str, path: Path, now: datetime, imported_by: str | None = None
) -> list[MemoryEntry]:
    text = read_memory_text(path, lambda _m: None)
    if not text:
        return []
    age = age_in_days(path, now)
    prose = free_text(text)
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
    return whole + [
        MemoryEntry(
            id=f"{scope}:{label}#{item.index}",
            scope=scope,
            path=path,
            title=item.text.splitlines()[0] if item.text else "",
            type=None,
            age_days=age,
            body=item.text,
            item_index=item.index,
            imported_by=imported_by,
        )
        for item in list_items(text)
    ]


def _imported_items(
    scope: EntryScope, importer: Path, paths: WavePaths, now: datetime
) -> list[MemoryEntry]:
    """Entries of the files `importer` imports, each right under its importer (MX3)."""
    text = read_memory_text(importer, lambda _m: None)
    if not text:
        return []
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


def _topic_files(memory_dir: Path) -> list[Path]:
    if not memory_dir.is_dir():
        return []
    index = memory_dir / MEMORY_INDEX_FILENAME
    return sorted(p for p in memory_dir.rglob("*.md") if p != index and p.is_file())


def _topic_entry(path: Path, memory_dir: Path, now: datetime) -> MemoryEntry:
    text = read_memory_text(path, lambda _m: None) or ""
    fm = parse_frontmatter(text)
    heading = _HEADING_RE.search(fm.body)
    title = fm.get_str("name") or (heading.group(1) if heading else "") or path.stem
    age = age_in_days(path, now)
    return MemoryEntry(
        id=f"auto:{_label(path, memory_dir)}",
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
        entries += _items("project", label, memory_file, now)
        entries += _imported_items("project", memory_file, paths, now)
    user_file = user_memory_file(paths)
    entries += _items("user", user_file.name, user_file, now)
    entries += _imported_items("user", user_file, paths, now)
    for topic in _topic_files(paths.memory_dir):
        entries.append(_topic_entry(topic, paths.memory_dir, now))
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
