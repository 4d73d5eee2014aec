"""Discovered rules and which of them a file path activates (R3, R4, R8).

Order of active rules (and of unconditional rules in the reminder): priority descending (higher
priority first), then project rules before user rules, then rule id.

Paths are matched with gitignore semantics (pathspec, through files/globbing.py) against the file
path relative to the project root; files outside the project root match no rule.
"""

from __future__ import annotations

import re
from dataclasses import field
from functools import cache
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from wave_tui.config.records import record
from wave_tui.files.globbing import gitignore_pattern, ordered_spec

if TYPE_CHECKING:
    import pathspec

Scope = Literal["project", "user"]
Status = Literal["always", "conditional", "inactive"]

_SCOPE_RANK: dict[str, int] = {"project": 0, "user": 1}


class Rule(NamedTuple):
    """One rule file as discovered. Immutable; a NamedTuple rather than a record: a session's
    first request makes one per rule file, in C (~1 us less each than a frozen dataclass's
    setattr calls at 11 fields, times 10k rule files)."""

    id: str
    location: str  # where the rule was found (below its root; symlinks not resolved)
    scope: Scope
    root: Path
    body: str
    patterns: tuple[str, ...]
    priority: int = 0
    status: Status = "always"
    reason: str = ""
    name: str = ""
    description: str = ""

    @property
    def path(self) -> Path:
        """`location` as a Path, made when first asked for (a request asks for none)."""
        return _path_of(self.location)


@cache
def _path_of(location: str) -> Path:
    # One Path per rule file a process has seen, its str and hash computed once: the catalog
    # asks every rule for its path on each listing (10k rules: 10k Paths made once, not each time).
    return Path(location)


# req: R8
def _in_rule_order(rules: list[Rule]) -> list[Rule]:
    """Priority descending, then project before user, then id: three stable sorts on one field
    each, so no key tuple is made per rule."""
    ordered = sorted(rules, key=attrgetter("id"))
    ordered.sort(key=lambda rule: _SCOPE_RANK[rule.scope])
    ordered.sort(key=attrgetter("priority"), reverse=True)  # reverse=True keeps ties in order
    return ordered


class RuleSet:
    """Discovered rules: `.all` is the catalog (inactive included), `.active` the loaded ones."""

    def __init__(self, rules: list[Rule], project_root: Path) -> None:
        self.project_root = project_root
        ordered = _in_rule_order(rules)
        self.active: list[Rule] = [r for r in ordered if r.status != "inactive"]
        self.all: list[Rule] = self.active + [r for r in ordered if r.status == "inactive"]
        self._conditional = [r for r in self.active if r.status == "conditional"]
        self._matcher: _Matcher | None = None

    def unconditional(self) -> list[Rule]:
        return [r for r in self.active if r.status == "always"]

    def conditional(self) -> list[Rule]:
        return list(self._conditional)

    def get(self, rule_id: str) -> Rule | None:
        return next((r for r in self.active if r.id == rule_id), None)

    def relative(self, path: Path) -> str | None:
        """The path relative to the project root (posix), or None when outside it."""
        p = path if path.is_absolute() else self.project_root / path
        rel = _relative_to(p, self.project_root) if ".." not in p.parts else None
        if rel is None:  # maybe reached through a symlink
            resolved = _safe_resolve(p)
            rel = _relative_to(resolved, self.project_root) if resolved else None
        return rel if rel != "." else None

    # req: R4
    def match(self, path: Path) -> list[tuple[Rule, str]]:
        """Conditional rules whose `paths` match the file, each with the pattern that matched."""
        rel = self.relative(path)
        if rel is None or not self._conditional:
            return []
        if self._matcher is None:
            self._matcher = _Matcher(self._conditional)
        return self._matcher.match(rel)


def _relative_to(path: Path, root: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def _safe_resolve(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


_GLOB_CHARS = frozenset("*?[\\")


def literal_prefix(pattern: str) -> tuple[str, ...]:
    """The leading literal folders of an anchored gitignore pattern; () when it floats.

    Gitignore anchors a pattern to the root when it has a `/` before its last character; such a
    pattern can only match paths that start with its literal leading segments.
    """
    body = pattern.rstrip("/")
    if body.startswith("/"):
        body = body[1:]
    elif "/" not in body:
        return ()
    prefix: list[str] = []
    for segment in body.split("/"):
        if not segment or any(ch in _GLOB_CHARS for ch in segment):
            break
        prefix.append(segment)
    return tuple(prefix)


@record(frozen=False)
class _Node:
    patterns: list[str] = field(default_factory=list)
    children: dict[str, _Node] = field(default_factory=dict)


def _negates(pattern: str) -> bool:
    """Whether a gitignore pattern is a negation (`!`), without compiling it."""
    return pattern.startswith("!")


def _is_null(pattern: str) -> bool:
    """A blank or comment pattern: it includes and excludes nothing (as pathspec reads it)."""
    body = pattern if pattern.endswith("\\ ") else pattern.rstrip()
    return not body or body.startswith("#")


_NEVER = re.compile(r"(?!)")  # a pattern that cannot compile matches no path


def _compiled(pattern: str) -> re.Pattern[str]:
    try:
        regex = gitignore_pattern(pattern).regex
    except ValueError:  # pathspec's invalid-pattern error (a trailing backslash)
        return _NEVER
    return regex if regex is not None else _NEVER


class _Matcher:
    """Each distinct pattern is filed in a trie under its literal leading folders, so a path is
    only tested against patterns that could match it; a pattern is compiled the first time it
    is such a candidate (10k conditional rules: none compiled for a file that no rule names)."""

    def __init__(self, rules: list[Rule]) -> None:
        self._rules = rules
        self._regex: dict[str, re.Pattern[str] | None] = {}  # None: not compiled yet
        self._negating: dict[int, pathspec.PathSpec[pathspec.RegexPattern]] = {}
        self._trie = _Node()
        self._rules_of: dict[str, list[int]] = {}
        for index, rule in enumerate(rules):
            if any(_negates(p) for p in rule.patterns):
                # Gitignore negation needs ordered evaluation: keep a per-rule spec for these.
                self._negating[index] = ordered_spec([gitignore_pattern(p) for p in rule.patterns])
                continue
            for pattern in rule.patterns:
                if _is_null(pattern):
                    continue
                if pattern not in self._regex:
                    self._regex[pattern] = None
                    node = self._trie
                    for segment in literal_prefix(pattern):
                        node = node.children.setdefault(segment, _Node())
                    node.patterns.append(pattern)
                self._rules_of.setdefault(pattern, []).append(index)

    def _regex_of(self, pattern: str) -> re.Pattern[str]:
        regex = self._regex[pattern]
        if regex is None:
            regex = self._regex[pattern] = _compiled(pattern)
        return regex

    def _candidates(self, rel: str) -> list[str]:
        node = self._trie
        found = list(node.patterns)
        for segment in rel.split("/"):
            child = node.children.get(segment)
            if child is None:
                break
            node = child
            found += node.patterns
        return found

    def match(self, rel: str) -> list[tuple[Rule, str]]:
        matched = {p for p in self._candidates(rel) if self._regex_of(p).match(rel)}
        hit = {i for p in matched for i in self._rules_of[p]}
        first = {i: next(p for p in self._rules[i].patterns if p in matched) for i in hit}
        for index, spec in self._negating.items():
            result = spec.check_file(rel)
            if result.include and result.index is not None:
                first[index] = self._rules[index].patterns[result.index]
        return [(self._rules[i], first[i]) for i in sorted(first)]
