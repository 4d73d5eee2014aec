"""Where each kind of manual memory enters the request, with its exact wording (I1, I2, R2, R3, D1).

- AGENTS.md (project, far to near), `~/.wave/AGENTS.md` and the unconditional rules travel as ONE
  transient user message (`reminder_text()`), rebuilt from disk before every request and never
  persisted.
- After a tool result, `on_tool_result()` returns persisted `is_meta` user messages to append after
  the tool results: first nested AGENTS.md files of read files (far to near, D4), then conditional
  rules newly matched by files in context (in rule order: priority, scope, id). Each nested file
  and each rule id is injected once per session; `restore()` rebuilds that state from a message
  list (resume, compaction).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal, NamedTuple, Protocol

from wave_tui.config.dir_watch import DirWatch, nearest_existing
from wave_tui.config.paths import MEMORY_INDEX_FILENAME, WavePaths
from wave_tui.llm.types import Message
from wave_tui.memory.agents_md import (
    Warn,
    default_warn,
    project_memory_files,
    read_memory_text,
    user_memory_file,
)
from wave_tui.memory.html_comments import strip_html_comments
from wave_tui.memory.imports import expand_imports
from wave_tui.memory.nested import nested_memory_chain
from wave_tui.memory.oversize import MEASURED_FROM
from wave_tui.memory.rules import Rule, RuleCache, RuleSet, discover_rules, rule_roots
from wave_tui.memory.team_files import inside_team_folder, team_folder


class ToolOutcome(Protocol):
    """What the injector reads of a tool result (a `tools.base.ToolResult` is one): the files
    that entered the context, without memory depending on the tool protocol."""

    @property
    def is_error(self) -> bool: ...
    @property
    def read_paths(self) -> list[Path]: ...
    @property
    def context_paths(self) -> list[Path]: ...


REMINDER_OPEN = "<system-reminder>"
REMINDER_CLOSE = "</system-reminder>"
MEMORY_LEAD_IN = (
    "As you answer the user's questions, use the following memory: instructions and facts the "
    "user saved for this project and for every project. They take precedence over your default "
    "behavior; follow them as written."
)
PROJECT_LABEL = "Contents of {path} (project memory):"
TEAM_LABEL = (
    "Contents of .wave/memory/MEMORY.md (team memory, committed with the project; its topic "
    "files are in .wave/memory/):"
)
USER_LABEL = "Contents of ~/.wave/AGENTS.md (user memory, applies in every project):"
ALWAYS_RULE_LABEL = "Rule {rule_id} ({scope} rule, applies to every file):"
RULE_MARKER = "<!-- rule: {rule_id} -->"
RULE_LEAD_IN = (
    "Rule {rule_id} applies now because {trigger} matches its path pattern {pattern}; "
    "follow it when working with matching files:"
)
NESTED_TEXT = "<system-reminder>Contents of {path}:\n\n{content}</system-reminder>"

META_RULE_ID = "ruleId"
META_TRIGGER = "trigger"
META_PATTERN = "pattern"
META_NESTED = "nestedMemory"

_RULE_MARKER_RE = re.compile(r"\A<!-- rule: (.+?) -->")
_NESTED_RE = re.compile(r"\A<system-reminder>Contents of (.+?):\n\n")


ReminderKind = Literal["agents_md", "team_memory", "user_agents_md", "rule"]


class ReminderPart(NamedTuple):  # a tuple: the reminder has one per unconditional rule
    label: str  # one line naming the source
    text: str
    kind: ReminderKind = "agents_md"  # for the per-source cost report (MX2)
    name: str = ""  # the file's label or the rule id


# req: I1
def build_memory_reminder(parts: Iterable[ReminderPart]) -> str | None:
    """The transient memory message: every non-empty part, labelled and trimmed. None if empty."""
    sections = [f"{p.label}\n\n{text}" for p in parts if (text := p.text.strip())]
    if not sections:
        return None
    body = "\n\n".join([MEMORY_LEAD_IN, *sections])
    return f"{REMINDER_OPEN}\n{body}\n{REMINDER_CLOSE}"


def rule_message_text(rule: Rule, trigger: str, pattern: str) -> str:
    marker = RULE_MARKER.format(rule_id=rule.id)
    lead_in = RULE_LEAD_IN.format(rule_id=rule.id, trigger=trigger, pattern=pattern)
    return f"{marker}\n{REMINDER_OPEN}\n{lead_in}\n\n{rule.body.strip()}\n{REMINDER_CLOSE}"


def nested_memory_text(path: Path, content: str) -> str:
    return NESTED_TEXT.format(path=path, content=content)


# req: R2
# req: I1
def reminder_parts(
    paths: WavePaths, rules: RuleSet, warn: Warn, imported: list[Path] | None = None
) -> list[ReminderPart]:
    """Project memory (far to near), user memory, then unconditional rules in rule order.

    `imported` collects the files the `@path` imports loaded (None for a missing one)."""
    return list(_iter_reminder_parts(paths, rules, warn, imported))


def _iter_reminder_parts(
    paths: WavePaths, rules: RuleSet, warn: Warn, imported: list[Path] | None
) -> Iterator[ReminderPart]:
    # One part at a time: the reminder alone never holds one object per rule (10k rules).
    for memory_file in project_memory_files(paths, warn):
        shown = _relative_label(memory_file, paths.project_root)
        text = _expanded(memory_file, shown, paths, warn, imported)
        if text:
            yield ReminderPart(PROJECT_LABEL.format(path=shown), text, "agents_md", shown)
    # req: MM4
    team = _team_index(paths, warn)
    if team:  # after the project AGENTS.md, before the user's own memory
        yield ReminderPart(TEAM_LABEL, team, "team_memory", ".wave/memory/MEMORY.md")
    user_text = _expanded(user_memory_file(paths), "~/.wave/AGENTS.md", paths, warn, imported)
    if user_text:
        yield ReminderPart(USER_LABEL, user_text, "user_agents_md", "~/.wave/AGENTS.md")
    for rule in rules.unconditional():
        label = ALWAYS_RULE_LABEL.format(rule_id=rule.id, scope=rule.scope)
        yield ReminderPart(label, rule.body, "rule", rule.id)


def _team_index(paths: WavePaths, warn: Warn) -> str | None:
    """The team MEMORY.md's text, unless a link takes it out of the team folder."""
    folder = team_folder(paths)
    if folder is None:
        return None
    index = folder / MEMORY_INDEX_FILENAME
    if not inside_team_folder(index, folder):
        warn(f"{index} links outside the team memory folder; skipped")
        return None
    return read_memory_text(index, warn)


def _expanded(
    path: Path, shown: str, paths: WavePaths, warn: Warn, imported: list[Path] | None
) -> str | None:
    """The memory file's text with its `@path` imports loaded in place (MX3)."""
    text = read_memory_text(path, warn)
    if not text:
        return text
    # A commented-out `@path` imports nothing; an imported file's own comments go too (MR6).
    expanded = expand_imports(path, strip_html_comments(text), paths, warn)
    if imported is not None:
        imported.extend(f.path for f in expanded.imported)
        if expanded.problems:
            imported.append(_UNWATCHABLE)
    problem = expanded.problem_line(shown)
    if problem is not None:
        warn(problem)
    return strip_html_comments(expanded.text)


def _measured(
    parts: Iterable[ReminderPart], large: list[tuple[str, int]]
) -> Iterator[ReminderPart]:
    """The parts as they go by, the sizes of the big ones noted (the oversize warning, MR6)."""
    for part in parts:
        if len(part.text) >= MEASURED_FROM:
            name = f"rule {part.name}" if part.kind == "rule" else part.name
            large.append((name, len(part.text)))
        yield part


def _relative_label(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()


class MemoryInjector:
    """Per-session memory injection state: loaded rule ids and injected nested files."""

    def __init__(self, paths: WavePaths, warn: Warn | None = None) -> None:
        self.paths = paths
        self.warn: Warn = warn or default_warn
        self.cache = RuleCache()
        self.loaded_rule_ids: set[str] = set()
        self.injected_nested: set[Path] = set()
        self.activations: dict[str, tuple[str, str]] = {}
        self._current: RuleSet | None = None
        self._told: set[str] = set()
        self._watch = DirWatch()
        self._reminder: str | None = None
        self._reminder_fresh = False  # the cached reminder is what the disk holds now
        self.large_parts: list[tuple[str, int]] = []  # (source, characters) of the last rebuild

    def move_to(self, paths: WavePaths) -> None:
        """The session works under another root now (a worktree): its AGENTS.md, rules and
        nested memory are read from there from the next request on."""
        self.paths = paths
        self._current = None
        self._reminder_fresh = False

    def rules(self) -> RuleSet:
        """Rules as they are on disk now (parsed files are cached by path, mtime and size)."""
        self._current = discover_rules(self.paths, self.warn, self.cache)
        return self._current

    def current_rules(self) -> RuleSet:
        """The rules discovered for the request being built (one walk per request)."""
        return self._current if self._current is not None else self.rules()

    def reminder_parts(self) -> list[ReminderPart]:
        """The parts of the next reminder, each named by kind and source (for `/context`)."""
        return reminder_parts(self.paths, self.rules(), self._warn_once)

    # req: R2
    # req: SP3
    def reminder_text(self) -> str | None:
        """The transient `<system-reminder>` to prepend to this request's messages (I1, R2).

        Rebuilt from disk unless the watch saw no change in any folder it was built from.
        """
        changed = self._watch.drain()
        if self._reminder_fresh and changed is not None and not changed:
            return self._reminder
        imported: list[Path] = []
        rules = self.rules()
        parts = _iter_reminder_parts(self.paths, rules, self._warn_once, imported)
        self.large_parts = []
        text = build_memory_reminder(_measured(parts, self.large_parts))
        added = self._watch_inputs(imported)
        self._reminder = text
        # A folder first watched now may have changed between its read and its watch: the next
        # request builds once more; from then on every change shows as an event.
        self._reminder_fresh = self._watch.available and not added and _UNWATCHABLE not in imported
        return text

    def _watch_inputs(self, imported: list[Path]) -> bool:
        """Watch every folder the reminder was read from; True if one was not watched yet."""
        # The rules' folders as this request's walk listed them (symlinked ones' targets too);
        # a root that is not there is watched through the nearest folder that is.
        folders: list[str | Path] = list(self.cache.listed)
        listed = set(self.cache.listed)
        for root, _scope in rule_roots(self.paths):
            if str(root) not in listed:
                folders.append(nearest_existing(root))
        top = self.paths.repo_top or self.paths.project_root
        folder = self.paths.project_root
        while True:  # the AGENTS.md chain: project root up to the repository top
            folders += [folder, nearest_existing(folder / ".claude")]
            if folder == top or folder.parent == folder or not folder.is_relative_to(top):
                break
            folder = folder.parent
        folders.append(nearest_existing(self.paths.user_agents_md.parent))
        folders.append(nearest_existing(self.paths.team_memory_dir))
        for path in imported:
            if path is not _UNWATCHABLE:
                folders += [path.parent, path.resolve().parent]
        added = False
        for name in folders:
            added |= self._watch.watch(name)
        return added

    def close(self) -> None:
        self._watch.close()

    def _warn_once(self, message: str) -> None:
        # The reminder is rebuilt before every request: the same problem is told once.
        if message not in self._told:
            self._told.add(message)
            self.warn(message)

    # req: D3
    # req: R5
    def on_tool_result(self, result: ToolOutcome) -> list[Message]:
        """Persisted meta messages to append after this tool result (D1, R3, R5)."""
        if result.is_error:
            return []
        messages = self._nested_messages(result.read_paths)
        if result.context_paths:
            messages += self._rule_messages(result.context_paths)
        return messages

    # req: D1
    # req: D2
    def _nested_messages(self, read_paths: list[Path]) -> list[Message]:
        messages: list[Message] = []
        for read_path in read_paths:
            for memory_file in nested_memory_chain(read_path, self.paths.project_root):
                key = memory_file.resolve()
                if key in self.injected_nested:
                    continue
                content = read_memory_text(memory_file, self.warn, strict=True)
                self.injected_nested.add(key)  # unreadable: skipped once, not re-warned (D7)
                if content is None:
                    continue
                text = nested_memory_text(memory_file, strip_html_comments(content))
                messages.append(Message.user(text, is_meta=True, **{META_NESTED: str(memory_file)}))
        return messages

    # req: R3
    # req: I2
    def _rule_messages(self, context_paths: list[Path]) -> list[Message]:
        rules = self.current_rules()
        fresh: dict[str, tuple[Rule, str, str]] = {}
        for path in context_paths:
            trigger = rules.relative(path)
            if trigger is None:
                continue
            for rule, pattern in rules.match(path):
                if rule.id not in self.loaded_rule_ids and rule.id not in fresh:
                    fresh[rule.id] = (rule, trigger, pattern)
        if not fresh:  # the usual Read: no walk over every active rule
            return []
        messages: list[Message] = []
        for rule in rules.active:  # rule order, not discovery order
            if rule.id not in fresh:
                continue
            _, trigger, pattern = fresh[rule.id]
            self.loaded_rule_ids.add(rule.id)
            self.activations[rule.id] = (trigger, pattern)
            meta = {META_RULE_ID: rule.id, META_TRIGGER: trigger, META_PATTERN: pattern}
            messages.append(
                Message.user(rule_message_text(rule, trigger, pattern), is_meta=True, **meta)
            )
        return messages

    # req: CP3
    def restore(self, messages: list[Message]) -> None:
        """Rebuild loaded rules and injected nested files from the messages that remain (resume,
        compaction): whatever is no longer in the messages may be injected again."""
        self.loaded_rule_ids.clear()
        self.injected_nested.clear()
        self.activations.clear()
        for message in messages:
            if message.role != "user" or not message.is_meta:
                continue
            rule_id = message.meta.get(META_RULE_ID)
            if rule_id is None:
                found = _RULE_MARKER_RE.match(message.content)
                rule_id = found.group(1) if found else None
            if rule_id is not None:
                self.loaded_rule_ids.add(str(rule_id))
                trigger = message.meta.get(META_TRIGGER)
                pattern = message.meta.get(META_PATTERN)
                if trigger is not None and pattern is not None:
                    self.activations[str(rule_id)] = (str(trigger), str(pattern))
                continue
            nested = message.meta.get(META_NESTED)
            if nested is None:
                found = _NESTED_RE.match(message.content)
                nested = found.group(1) if found else None
            if nested is not None:
                self.injected_nested.add(_resolve(Path(str(nested))))


_UNWATCHABLE = Path("\0missing-import")  # an import that did not load: its creation is unseen


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
