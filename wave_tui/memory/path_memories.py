"""Path-scoped memories: topic files with `paths:` frontmatter load like conditional rules (MM3).

A topic file of the auto-memory folder (or of the team folder `.wave/memory/`) whose frontmatter
has `paths:` keeps its line in MEMORY.md, but its body enters the conversation only when a file
matching one of its patterns enters the context — as its own persisted `isMeta` user message
after the tool result, where seed 003 puts conditional rules. Each memory loads once per session;
`restore` rebuilds the loaded set from the messages that remain (resume, compaction). Patterns
are matched exactly as a rule's (gitignore semantics relative to the project root), by the rule
matcher itself. Files are parsed again only when their stat changes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal, NamedTuple

from wave_tui.config.paths import MEMORY_INDEX_FILENAME
from wave_tui.llm.types import Message
from wave_tui.memory.decoding import decode_memory_bytes
from wave_tui.memory.frontmatter import split_frontmatter
from wave_tui.memory.rule_match import Rule, RuleSet
from wave_tui.memory.rule_parse import parse_paths_value
from wave_tui.memory.team_files import inside_team_folder

MemoryScope = Literal["auto", "team"]
MEMORY_MARKER = "<!-- memory: {memory_id} -->"
MEMORY_LEAD_IN = (
    "Memory {memory_id} ({scope} memory) applies now because {trigger} matches its path pattern "
    "{pattern}; use it when working with matching files:"
)
META_MEMORY_ID = "pathMemoryId"
_MARKER_RE = re.compile(r"\A<!-- memory: (.+?) -->")
_HEAD_BYTES = 4096  # `paths:` is looked for in the head: a file without it is not parsed


class PathMemory(NamedTuple):
    id: str  # `auto:api.md`, `team:api.md` — the catalog's entry id
    scope: MemoryScope
    path: Path
    body: str
    patterns: tuple[str, ...]


_Stat = tuple[int, int, int]


def _stat(path: str) -> _Stat | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _listing(folder: str) -> tuple[tuple[tuple[str, int], ...], list[tuple[str, str]]]:
    """(every folder's mtime, (relative, full) of every `*.md` below `folder` bar MEMORY.md and
    hidden names), from one scandir per folder — no stat per file."""
    folders: list[tuple[str, int]] = []
    files: list[tuple[str, str]] = []

    def walk(path: str, prefix: str) -> None:
        try:
            folders.append((path, os.stat(path).st_mtime_ns))
            with os.scandir(path) as scan:
                children = sorted(scan, key=lambda c: c.name)
        except OSError:
            return
        for child in children:
            name = child.name
            if name.startswith("."):
                continue
            try:
                if child.is_dir(follow_symlinks=False):
                    walk(child.path, f"{prefix}{name}/")
                elif name.endswith(".md") and prefix + name != MEMORY_INDEX_FILENAME:
                    files.append((prefix + name, child.path))
            except OSError:
                continue

    walk(folder, "")
    return tuple(folders), files


def parse_path_memory(scope: MemoryScope, relative: str, full: str) -> PathMemory | None:
    """The file as a path-scoped memory; None when it has no (usable) `paths:`."""
    try:
        with open(full, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
            if b"paths" not in head:
                return None
            data = head + fh.read()
    except OSError:
        return None
    text = decode_memory_bytes(data).text
    if not text:
        return None
    fields, body, _has, error = split_frontmatter(text)
    if error is not None or "paths" not in fields:
        return None
    patterns, problem = parse_paths_value(fields["paths"])
    if problem is not None or not patterns:
        return None
    return PathMemory(f"{scope}:{relative}", scope, Path(full), body.strip(), tuple(patterns))


class PathMemoryScan:
    """The path-scoped memories of some folders. A folder none of whose sub-folders changed
    (their mtimes: a file added, removed or replaced by an atomic write) is not listed again and
    only its path-scoped files are stat'ed; a file is parsed again only when its stat changed.
    (A file edited in place to gain `paths:` is seen once its folder next changes.)"""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[_Stat, PathMemory | None]] = {}
        self._folders: dict[str, tuple[tuple[tuple[str, int], ...], list[str]]] = {}

    def memories(self, folders: Iterable[tuple[Path, MemoryScope]]) -> list[PathMemory]:
        found: list[PathMemory] = []
        for folder, scope in folders:
            found += self._folder(str(folder), scope)
        return found

    def _folder(self, folder: str, scope: MemoryScope) -> list[PathMemory]:
        signature, files = _listing(folder)
        kept = self._folders.get(folder)
        if kept is not None and kept[0] == signature:
            candidates = [(full[len(folder) + 1 :], full) for full in kept[1]]
        elif scope == "team":  # committed by anyone: a link never brings in an outside file
            candidates = [(r, f) for r, f in files if inside_team_folder(f, Path(folder))]
        else:
            candidates = files
        found: list[PathMemory] = []
        for relative, full in candidates:
            stat = _stat(full)
            if stat is None:
                continue
            hit = self._kept.get(full)
            if hit is not None and hit[0] == stat:
                memory = hit[1]
            else:
                memory = parse_path_memory(scope, relative, full)
                self._kept[full] = (stat, memory)
            if memory is not None:
                found.append(memory)
        self._folders[folder] = (signature, [str(m.path) for m in found])
        return found


def memory_message_text(memory: PathMemory, trigger: str, pattern: str) -> str:
    marker = MEMORY_MARKER.format(memory_id=memory.id)
    lead_in = MEMORY_LEAD_IN.format(
        memory_id=memory.id, scope=memory.scope, trigger=trigger, pattern=pattern
    )
    return f"{marker}\n<system-reminder>\n{lead_in}\n\n{memory.body}\n</system-reminder>"


class PathMemoryLoader:
    """Per-session state: which path-scoped memories are loaded, and the messages that load more."""

    def __init__(self, project_root: Path) -> None:
        self.project_root = project_root
        self.scan = PathMemoryScan()
        self.loaded: set[str] = set()

    # req: MM3
    def on_context(
        self, context_paths: list[Path], folders: list[tuple[Path, MemoryScope]]
    ) -> list[tuple[PathMemory, Message]]:
        """The memories newly matched by files that entered the context, each with its message
        (persisted, `isMeta`), in folder then file order."""
        if not context_paths or not folders:
            return []
        memories = [m for m in self.scan.memories(folders) if m.id not in self.loaded]
        if not memories:
            return []
        as_rules = RuleSet([_as_rule(m) for m in memories], self.project_root)
        fresh: dict[str, tuple[str, str]] = {}
        for path in context_paths:
            trigger = as_rules.relative(path)
            if trigger is None:
                continue
            for rule, pattern in as_rules.match(path):
                fresh.setdefault(rule.id, (trigger, pattern))
        out: list[tuple[PathMemory, Message]] = []
        for memory in memories:
            if memory.id not in fresh:
                continue
            trigger, pattern = fresh[memory.id]
            self.loaded.add(memory.id)
            text = memory_message_text(memory, trigger, pattern)
            out.append((memory, Message.user(text, is_meta=True, **{META_MEMORY_ID: memory.id})))
        return out

    def restore(self, messages: list[Message]) -> None:
        """What is still in the messages stays loaded; the rest may load again."""
        self.loaded.clear()
        for message in messages:
            if message.role != "user" or not message.is_meta:
                continue
            memory_id = message.meta.get(META_MEMORY_ID)
            if memory_id is None:
                found = _MARKER_RE.match(message.content)
                memory_id = found.group(1) if found else None
            if memory_id is not None:
                self.loaded.add(str(memory_id))


def _as_rule(memory: PathMemory) -> Rule:
    return Rule(
        id=memory.id,
        location=str(memory.path),
        scope="project",
        root=memory.path.parent,
        body=memory.body,
        patterns=memory.patterns,
        status="conditional",
    )
