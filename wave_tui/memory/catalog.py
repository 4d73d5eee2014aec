"""Every memory entry the user can see and delete, in one list (M3): AGENTS.md items, auto-memory
topic files and rules (with why each rule is or is not active).

Ids are readable and stable while the file is unchanged: `project:AGENTS.md#3`,
`user:AGENTS.md#1`, `auto:<path relative to the memory dir>`, `rule:<scope>:<rule id>`
(`rule:<scope>@claude:<rule id>` for rules under a `.claude/rules` folder).

A `CatalogCache` passed to `build_catalog` keeps each file's entries from one build to the next,
reused while the file's stat is unchanged: the memory browser reloads 10,000 entries on every
showing and after every extraction without reading them again.
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import asdict, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple

from wave_tui.config.clock import Clock
from wave_tui.config.paths import MEMORY_INDEX_FILENAME, WavePaths
from wave_tui.config.records import record
from wave_tui.memory.agents_md import (
    Warn,
    project_memory_files,
    read_memory_text,
    user_memory_file,
)
from wave_tui.memory.citations import ChangedRef
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
from wave_tui.memory.rule_parse import parse_paths_value
from wave_tui.memory.rules import Rule, RuleSet, discover_rules
from wave_tui.memory.team_files import inside_team_folder, team_folder

EntryScope = Literal["project", "team", "user", "auto", "rule"]
TopicScope = Literal["team", "auto"]
SECONDS_PER_DAY = 86_400
STALE_AFTER_DAYS = 1
_HEADING_RE = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
# A file changed this shortly before it was read may change again within its timestamps'
# granularity and keep its stat: it is not reused (git's "racily clean" rule). Seconds-coarse
# filesystems included.
SETTLED_NS = 2_000_000_000


class UnknownEntryError(EntryError):
    """No entry has the given id."""


# Slots: no `__dict__` per entry, so 10,000 entries are half the objects for the collector.
@record(slots=True, bulk=True)
class MemoryEntry:
    id: str
    scope: EntryScope
    path: Path
    title: str
    type: str | None
    age_days: int | None
    body: str
    # Rules: always | conditional | inactive; path-scoped memories (MM3): conditional.
    status: str | None = None
    reason: str | None = None  # "conditional: src/api/**/*.ts", …
    loads: int | None = None  # rules and path-scoped memories: loads seen (MM6)
    last_loaded: str | None = None  # ISO 8601
    unused: bool = False  # "never loaded in 30 days" (MM6)
    conflicts: tuple[str, ...] = ()  # "<other id>: <reason>" for each open contradiction (MM2)
    # Only auto memories go stale: they are point-in-time observations (T1). AGENTS.md items and
    # rules are instructions, in force until someone edits them, whatever their age.
    stale: bool = False
    item_index: int | None = None  # list items only
    imported_by: str | None = None  # an `@path` import: the importing file's label (MX3)
    missing_refs: tuple[str, ...] = ()  # cited files/lines/symbols no longer there (MX6)
    changed_refs: tuple[ChangedRef, ...] = ()  # cited text changed since written (MM1)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path)
        del data["item_index"], data["unused"]
        if self.conflicts:
            data["conflicts"] = list(self.conflicts)
        else:
            del data["conflicts"]
        if self.status is None:
            del data["status"], data["reason"]
        if self.status is None or self.loads is None:
            del data["loads"], data["last_loaded"]
        if self.imported_by is None:
            del data["imported_by"]
        data["changed_refs"] = [c.to_json() for c in self.changed_refs]
        if self.missing_refs:
            data["missing_refs"] = list(self.missing_refs)
        else:
            del data["missing_refs"]
        return data


class _Stat(NamedTuple):
    signature: tuple[int, int, int, int, int]  # inode, device, size, mtime_ns, ctime_ns
    mtime: float


def _stat_of(st: os.stat_result) -> _Stat:
    signature = (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return _Stat(signature, st.st_mtime)


def _stat(path: str) -> _Stat | None:
    try:
        return _stat_of(os.stat(path))
    except OSError:
        return None


class _Made(NamedTuple):
    """What one file gave: its entries, its text (imports are expanded from it) and its age."""

    entries: list[MemoryEntry]
    text: str
    mtime: float


class CatalogCache:
    """Each memory file's entries as the last build made them, by the file's stat."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str | None, ...], tuple[_Stat, _Made]] = {}


@record(frozen=False)
class _Build:
    """One build's view of the cache: it reads the kept files and keeps what it made or reused
    (a file gone since is dropped); concurrent builds each replace the whole set when done."""

    kept: dict[tuple[str | None, ...], tuple[_Stat, _Made]]
    settled_before_ns: int
    made: dict[tuple[str | None, ...], tuple[_Stat, _Made]] = field(default_factory=dict)

    @classmethod
    def of(cls, cache: CatalogCache | None) -> _Build:
        if cache is None:
            return cls({}, 0)
        return cls(cache.kept, time.time_ns() - SETTLED_NS)

    def reuse(self, key: tuple[str | None, ...], stat: _Stat) -> _Made | None:
        hit = self.kept.get(key)
        if hit is None or hit[0] != stat:
            return None
        self.made[key] = hit
        return hit[1]

    def keep(self, key: tuple[str | None, ...], stat: _Stat, made: _Made) -> None:
        _ino, _dev, _size, mtime_ns, ctime_ns = stat.signature
        if max(mtime_ns, ctime_ns) < self.settled_before_ns:
            self.made[key] = (stat, made)


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
    age: int | None,
    text: str,
    imported_by: str | None = None,
) -> list[MemoryEntry]:
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


def _read_items(
    scope: EntryScope,
    label: str,
    path: Path,
    now: datetime,
    build: _Build,
    imported_by: str | None = None,
) -> _Made | None:
    """A memory file's entries and text, from the last build when the file is unchanged; None
    when it is missing, unreadable or empty."""
    key = ("items", str(path), scope, label, imported_by)
    stat = _stat(str(path))
    if stat is None:
        return None  # missing (a file that cannot be stat'ed cannot be read either)
    made = build.reuse(key, stat)
    if made is not None and made.entries[0].age_days == _age(made.mtime, now):
        return made
    text = read_memory_text(path, lambda _m: None)
    if not text:
        return None
    made = _Made(
        _items(scope, label, path, _age(stat.mtime, now), text, imported_by), text, stat.mtime
    )
    if made.entries:
        build.keep(key, stat, made)
    return made


def _file_entries(
    scope: EntryScope, label: str, path: Path, paths: WavePaths, now: datetime, build: _Build
) -> list[MemoryEntry]:
    """A memory file's entries, then those of the files it imports (MX3), from one read."""
    made = _read_items(scope, label, path, now, build)
    if made is None:
        return []
    entries = list(made.entries)  # the kept list stays as it was made
    if "@" in made.text:  # an import line names its file after an `@`: none, nothing to expand
        entries += _imported_items(scope, path, made.text, paths, now, build)
    return entries


def _imported_items(
    scope: EntryScope,
    importer: Path,
    text: str,
    paths: WavePaths,
    now: datetime,
    build: _Build,
) -> list[MemoryEntry]:
    """Entries of the files `importer` (whose content is `text`) imports, each right under its
    importer (MX3)."""
    entries: list[MemoryEntry] = []
    seen: set[Path] = set()
    for imported in expand_imports(importer, text, paths).imported:
        if imported.path in seen:
            continue
        seen.add(imported.path)
        by = _label(imported.importer, paths.project_root)
        label = _label(imported.path, paths.project_root)
        made = _read_items(scope, label, imported.path, now, build, imported_by=by)
        if made is not None:
            entries += made.entries
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


def _read_topic(path: str) -> tuple[str, _Stat | None]:
    """The file's text ("" when it cannot be read or is binary) and its stat, from one open:
    `os.open` and `os.read`, not a buffered file object per file."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return "", _stat(path)
    try:
        stat = _stat_of(os.fstat(fd))
        chunks = [os.read(fd, stat.signature[2] + 1)]  # the size, and one byte to see the end
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 16))
    except OSError:
        return "", _stat(path)
    finally:
        os.close(fd)
    return decode_memory_bytes(b"".join(chunks)).text or "", stat


def _topic_entry(
    relative: str,
    full: str,
    memory_dir: Path,
    now: datetime,
    build: _Build,
    scope: TopicScope = "auto",
) -> MemoryEntry:
    key = (scope, full)
    kept = _stat(full) if build.kept else None
    made = build.reuse(key, kept) if kept is not None else None
    if kept is not None and made is not None:
        entry = made.entries[0]
        age = _age(made.mtime, now)
        if entry.age_days != age:  # a day has passed: the entry is a day older, not new
            entry = replace(entry, age_days=age, stale=age > STALE_AFTER_DAYS)
            build.made[key] = (kept, made._replace(entries=[entry]))
        return entry
    text, stat = _read_topic(full)
    fm = parse_frontmatter(text)
    path = memory_dir / relative
    title = fm.get_str("name")
    if not title:  # the heading only when there is no name
        heading = _HEADING_RE.search(fm.body)
        title = (heading.group(1) if heading else "") or path.stem
    days = None if stat is None else _age(stat.mtime, now)
    patterns, _problem = (
        parse_paths_value(fm.data.get("paths")) if "paths" in fm.data else ([], None)
    )
    entry = MemoryEntry(
        id=f"{scope}:{relative}",
        scope=scope,
        status="conditional" if patterns else None,
        reason=f"conditional: {', '.join(patterns)}" if patterns else None,
        path=path,
        title=title,
        type=fm.get_str("type") or None,
        age_days=days,
        body=text,
        stale=days is not None and days > STALE_AFTER_DAYS,
    )
    if stat is not None and text:
        build.keep(key, stat, _Made([entry], text, stat.mtime))
    return entry


def rule_entry_id(rule: Rule) -> str:
    """`rule:project:api.md`; a rule from a `.claude/rules` root is `rule:project@claude:api.md`,
    so a rule it overrides (or that overrides it) never shares its id."""
    origin = "@claude" if rule.root.parent.name == ".claude" else ""
    return f"rule:{rule.scope}{origin}:{rule.id}"


def _rule_entries(rules: RuleSet, now: datetime) -> list[MemoryEntry]:
    entries = []
    for rule in rules.all:
        path = rule.path
        age = age_in_days(path, now)
        entries.append(
            MemoryEntry(
                id=rule_entry_id(rule),
                scope="rule",
                path=path,
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
    cache: CatalogCache | None = None,
) -> list[MemoryEntry]:
    """Project items, user items, auto-memory topic files, then rules. With `cache`, a memory
    file whose stat is as it was in the last build is not read again."""
    build = _Build.of(cache)
    now = clock()
    entries: list[MemoryEntry] = []
    for memory_file in project_memory_files(paths):
        label = _label(memory_file, paths.project_root)
        entries += _file_entries("project", label, memory_file, paths, now, build)
    team = team_folder(paths)  # after the project AGENTS.md, as it loads (MM4)
    if team is not None:
        entries += [
            _topic_entry(rel, full, team, now, build, "team")
            for rel, full in _topic_files(team)
            if inside_team_folder(full, team)
        ]
    user_file = user_memory_file(paths)
    entries += _file_entries("user", user_file.name, user_file, paths, now, build)
    memory_dir = paths.memory_dir
    entries += [
        _topic_entry(rel, full, memory_dir, now, build) for rel, full in _topic_files(memory_dir)
    ]
    rule_set = rules or discover_rules(paths, warn or (lambda _m: None))
    entries += _rule_entries(rule_set, now)
    if cache is not None:
        cache.kept = build.made
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
    elif entry.scope in ("auto", "team"):
        relative = entry.id.split(":", 1)[1]
        _unlink(entry.path)
        folder = paths.memory_dir if entry.scope == "auto" else paths.team_memory_dir
        remove_index_pointer(folder / MEMORY_INDEX_FILENAME, relative)
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
