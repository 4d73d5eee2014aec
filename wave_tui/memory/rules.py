"""Memory rules: discovery, frontmatter, precedence, ordering and path matching (R1–R10, X4).

Roots, highest precedence first: `<project>/.wave/rules`, `<project>/.claude/rules`,
`~/.wave/rules`, `~/.claude/rules`. Every `*.md` below a root is a rule (recursively; symlinks to
files and folders are followed, cycles are cut by a visited set of real folder paths, broken links
are skipped with a warning). A rule's id is its path relative to its root (posix); a rule whose id
already came from a higher-precedence root is kept in the catalog as *inactive* ("overridden by").

Frontmatter keys: `paths` (list, or a comma-separated string; `{a,b}` braces expand), `priority`
(int, default 0), `name`, `description`. A file without frontmatter or without `paths` is
unconditional (X4). A file is reported and does not load when its YAML does not parse, when
`paths`/`priority` has an unusable value, or when it uses a scope key of another tool (`globs`,
`applyTo`, `alwaysApply`, …) — loading such a rule everywhere would silently ignore its intended
scope. Other unknown keys are reported, and the rule still loads.

Order of active rules (and of unconditional rules in the reminder): priority descending (higher
priority first), then project rules before user rules, then rule id.

Paths are matched with gitignore semantics (pathspec) against the file path relative to the
project root; files outside the project root match no rule.
"""

from __future__ import annotations

import os
import re
import stat as stat_mod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wave_tui.config.paths import WavePaths
from wave_tui.memory.decoding import decode_memory_bytes
from wave_tui.memory.frontmatter import parse_frontmatter

if TYPE_CHECKING:
    import pathspec

Scope = Literal["project", "user"]
Status = Literal["always", "conditional", "inactive"]
Warn = Callable[[str], None]

KNOWN_KEYS = frozenset({"paths", "priority", "name", "description"})
# Scope keys of other agents: a rule using one meant to be conditional, so it must not load blind.
SCOPE_KEY_HINTS: dict[str, str] = {
    "globs": "paths",
    "glob": "paths",
    "applyto": "paths",
    "path": "paths",
    "files": "paths",
    "include": "paths",
    "patterns": "paths",
    "pattern": "paths",
    "match": "paths",
    "alwaysapply": "omit 'paths' for an always-on rule",
}
MAX_DEPTH = 64
MAX_BRACE_EXPANSIONS = 256

_SCOPE_RANK: dict[str, int] = {"project": 0, "user": 1}


@dataclass(frozen=True)
class Rule:
    id: str
    path: Path  # where the rule was found (below its root; symlinks not resolved)
    scope: Scope
    root: Path
    body: str
    patterns: list[str] = field(default_factory=list)
    priority: int = 0
    status: Status = "always"
    reason: str = ""
    name: str = ""
    description: str = ""

    @property
    def is_active(self) -> bool:
        return self.status != "inactive"


# -- parsing of `paths` ---------------------------------------------------------------------------


def split_top_level_commas(text: str) -> list[str]:
    """Split on commas that are not inside `{}`."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


# req: R9
def expand_braces(pattern: str) -> list[str]:
    """`{src,lib}/**/*.ts` -> `src/**/*.ts`, `lib/**/*.ts` (nested braces too, R9).

    Braces without a top-level comma and unbalanced braces stay literal.
    """
    out: list[str] = []
    _expand(pattern, 0, out)
    return list(dict.fromkeys(out))


def _expand(pattern: str, search_from: int, out: list[str]) -> None:
    if len(out) >= MAX_BRACE_EXPANSIONS:
        return
    start = pattern.find("{", search_from)
    if start < 0:
        out.append(pattern)
        return
    depth = 0
    commas: list[int] = []
    end = -1
    for j in range(start, len(pattern)):
        ch = pattern[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                end = j
                break
        elif ch == "," and depth == 1:
            commas.append(j)
    if end < 0:
        out.append(pattern)
        return
    if not commas:
        _expand(pattern, start + 1, out)
        return
    prefix, suffix = pattern[:start], pattern[end + 1 :]
    bounds = [start, *commas, end]
    for a, b in pairwise(bounds):
        _expand(prefix + pattern[a + 1 : b] + suffix, 0, out)


# req: R6
def parse_paths_value(value: Any) -> tuple[list[str], str | None]:
    """Patterns from a `paths` value, or an error. Strings split on commas outside braces."""
    if value is None:
        return [], None
    if isinstance(value, str):
        raw = split_top_level_commas(value)
    elif isinstance(value, list):
        raw = []
        for item in value:
            if not isinstance(item, str | int | float):
                return [], "'paths' entries must be strings"
            text = str(item).strip()
            if text:
                raw.append(text)
    else:
        return [], "'paths' must be a list or a comma-separated string"
    patterns: list[str] = []
    for item in raw:
        if "\n" in item:  # req: MX4
            # A `|` block without commas folds into one pattern holding a newline: no path has one.
            shown = item.replace("\n", "\\n")
            return [], (
                f"'paths' pattern '{shown}' spans lines and can never match "
                "(separate patterns with commas or write a YAML list)"
            )
        cleaned = item[2:] if item.startswith("./") else item
        for expanded in expand_braces(cleaned):
            if expanded not in patterns:
                patterns.append(expanded)
    return patterns, None


# -- parsing of one rule file ---------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedRuleFile:
    """What a rule file's content says, independent of where it was found."""

    body: str
    patterns: tuple[str, ...]
    priority: int
    name: str
    description: str
    problems: tuple[str, ...]  # reported; the rule still loads
    fatal: str | None  # reported; the rule does not load


def _unknown_key_problem(key: str) -> tuple[str, bool]:
    hint = SCOPE_KEY_HINTS.get(key.lower())
    if hint is None:
        return f"unknown frontmatter key '{key}' (ignored)", False
    if hint.startswith("omit"):
        return f"unknown frontmatter key '{key}' ({hint})", True
    return f"unknown frontmatter key '{key}' (did you mean '{hint}'?)", True


# req: R10
def parse_rule_text(text: str) -> ParsedRuleFile:
    fm = parse_frontmatter(text)
    body = fm.body
    if fm.error is not None:
        return ParsedRuleFile(body, (), 0, "", "", (), fm.error)
    problems: list[str] = []
    fatal: str | None = None
    for key in fm.data:
        if key in KNOWN_KEYS:
            continue
        problem, is_fatal = _unknown_key_problem(key)
        if is_fatal and fatal is None:
            fatal = problem
        elif not is_fatal:
            problems.append(problem)
    patterns, paths_error = parse_paths_value(fm.data.get("paths"))
    if paths_error and fatal is None:
        fatal = paths_error
    priority = 0
    raw_priority = fm.data.get("priority", 0)
    if raw_priority is not None:
        if isinstance(raw_priority, bool) or not isinstance(raw_priority, int | str):
            problems.append("'priority' must be an integer (using 0)")
        else:
            try:
                priority = int(raw_priority)
            except ValueError:
                problems.append("'priority' must be an integer (using 0)")
    return ParsedRuleFile(
        body=body,
        patterns=tuple(patterns),
        priority=priority,
        name=fm.get_str("name"),
        description=fm.get_str("description"),
        problems=tuple(problems),
        fatal=fatal,
    )


def _parse_rule_file(path: Path) -> ParsedRuleFile:
    """The rule file's content, decoded as every memory source is (X11): a binary file does not
    load (the rule is inactive with the reason), undecodable bytes are reported."""
    decoded = decode_memory_bytes(path.read_bytes())
    if decoded.text is None:
        return ParsedRuleFile("", (), 0, "", "", (), decoded.problem)
    parsed = parse_rule_text(decoded.text)
    if decoded.problem is None:
        return parsed
    return replace(parsed, problems=(*parsed.problems, decoded.problem))


class RuleCache:
    """Parsed rule files keyed by (real path, mtime_ns, size), built rules keyed by where they
    were found, and the warnings already shown.

    Keep one per session so re-discovery every turn is cheap and an edited rule is picked up.
    """

    def __init__(self) -> None:
        self._parsed: dict[str, tuple[int, int, ParsedRuleFile]] = {}
        self._rules: dict[tuple[str, str], tuple[ParsedRuleFile, Rule]] = {}
        self._warned: set[str] = set()
        # The last RuleSet and the stat signature of the walk it came from: unchanged files ⇒
        # the same object, so nothing is re-parsed and its compiled matcher is reused.
        self._last: tuple[tuple[object, ...], RuleSet] | None = None

    def ruleset(self, signature: tuple[object, ...], build: Callable[[], RuleSet]) -> RuleSet:
        if self._last is not None and self._last[0] == signature:
            return self._last[1]
        ruleset = build()
        self._last = (signature, ruleset)
        return ruleset

    def parsed(self, real: str, st: os.stat_result) -> ParsedRuleFile:
        hit = self._parsed.get(real)
        if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            return hit[2]
        parsed = _parse_rule_file(Path(real))
        self._parsed[real] = (st.st_mtime_ns, st.st_size, parsed)
        return parsed

    def rule(self, found: _Found, root: Path, scope: Scope) -> Rule:
        parsed = self.parsed(found.real, found.stat)
        key = (found.path, scope)
        hit = self._rules.get(key)
        if hit is not None and hit[0] is parsed:
            return hit[1]
        rel = found.path[len(str(root)) + 1 :]
        rule_id = rel.replace(os.sep, "/") if os.sep != "/" else rel
        rule = _make_rule(rule_id, Path(found.path), scope, root, parsed)
        self._rules[key] = (parsed, rule)
        return rule

    def warn_once(self, warn: Warn, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            warn(message)


# -- discovery ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Found:
    path: str  # as found below the root (symlinks not resolved)
    real: str
    stat: os.stat_result


def _walk_rules(root: Path, display: Callable[[Path], str], note: Warn) -> Iterator[_Found]:
    try:
        real_root = os.path.realpath(root)
        if not os.path.isdir(real_root):
            return
    except OSError:
        return
    visited: set[str] = {real_root}
    yield from _walk_dir(str(root), 0, visited, display, note)


# req: R7
def _walk_dir(
    folder: str, depth: int, visited: set[str], display: Callable[[Path], str], note: Warn
) -> Iterator[_Found]:
    if depth > MAX_DEPTH:
        note(f"{display(Path(folder))}: rules folder nested too deep; not descending further")
        return
    try:
        with os.scandir(folder) as it:
            entries = list(it)  # no sort: RuleSet orders by priority, scope and id
    except OSError as exc:
        note(f"{display(Path(folder))}: cannot list rules folder ({exc.strerror or exc})")
        return
    for entry in entries:
        path = entry.path
        try:
            is_link = entry.is_symlink()
            if is_link:
                real = os.path.realpath(path, strict=True)
                st = os.stat(real)
            else:
                real = path
                st = entry.stat()
        except (OSError, RuntimeError):
            note(f"{display(Path(path))}: broken symlink skipped")
            continue
        if _is_dir(st):
            real_dir = real if is_link else os.path.realpath(path)
            if real_dir in visited:
                note(f"{display(Path(path))}: symlink cycle (folder already visited) skipped")
                continue
            visited.add(real_dir)
            yield from _walk_dir(path, depth + 1, visited, display, note)
        elif entry.name.endswith(".md") and _is_file(st):
            yield _Found(path, real, st)


def _is_dir(st: os.stat_result) -> bool:
    return stat_mod.S_ISDIR(st.st_mode)


def _is_file(st: os.stat_result) -> bool:
    return stat_mod.S_ISREG(st.st_mode)


def display_path(path: Path, paths: WavePaths) -> str:
    """A short path for messages: relative to the project root, or `~/…`, else absolute."""
    for base, prefix in ((paths.project_root, ""), (paths.home, "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return path.as_posix()


# req: R8
def rule_roots(paths: WavePaths) -> list[tuple[Path, Scope]]:
    """Rule roots, highest precedence first."""
    roots: list[tuple[Path, Scope]] = [(p, "project") for p in paths.project_rules_dirs]
    roots += [(p, "user") for p in paths.user_rules_dirs]
    return roots


# req: R1
# req: R10
def discover_rules(paths: WavePaths, warn: Warn, cache: RuleCache | None = None) -> RuleSet:
    """Every rule under every root, with precedence, status and order applied (R1, R7–R10)."""
    cache = cache or RuleCache()
    note = lambda message: cache.warn_once(warn, message)  # noqa: E731
    show = lambda p: display_path(p, paths)  # noqa: E731
    found_by_root = [
        (root, scope, list(_walk_rules(root, show, note))) for root, scope in rule_roots(paths)
    ]
    # Nothing on disk moved (same files, same mtimes/sizes/inodes) ⇒ the same RuleSet, with its
    # compiled matcher: per request this costs the walk's stat calls and nothing else.
    key = (
        paths.project_root,
        *(
            (f.path, f.real, f.stat.st_mtime_ns, f.stat.st_size, f.stat.st_ino)
            for _, _, found in found_by_root
            for f in found
        ),
    )
    return cache.ruleset(key, lambda: _build(paths, cache, found_by_root, show, note))


def _build(
    paths: WavePaths,
    cache: RuleCache,
    found_by_root: list[tuple[Path, Scope, list[_Found]]],
    show: Callable[[Path], str],
    note: Warn,
) -> RuleSet:
    winners: dict[str, Rule] = {}
    rules: list[Rule] = []
    for root, scope, found_here in found_by_root:
        for found in found_here:
            try:
                rule = cache.rule(found, root, scope)
            except OSError as exc:
                note(f"{show(Path(found.path))}: cannot read ({exc.strerror or exc})")
                continue
            parsed = cache.parsed(found.real, found.stat)
            if parsed.problems or parsed.fatal:
                _report(rule, parsed, show, note)
            winner = winners.get(rule.id)
            if winner is not None:
                rule = replace(rule, status="inactive", reason=f"overridden by {show(winner.path)}")
            else:
                winners[rule.id] = rule
            rules.append(rule)
    return RuleSet(rules, paths.project_root)


def _report(rule: Rule, parsed: ParsedRuleFile, show: Callable[[Path], str], note: Warn) -> None:
    for problem in parsed.problems:
        note(f"{show(rule.path)}: {problem}")
    if parsed.fatal is not None:
        note(f"{show(rule.path)}: {parsed.fatal}; rule not loaded")


def _make_rule(rule_id: str, path: Path, scope: Scope, root: Path, parsed: ParsedRuleFile) -> Rule:
    patterns = list(parsed.patterns)
    if parsed.fatal is not None:
        status: Status = "inactive"
        reason = parsed.fatal
    elif patterns:
        status = "conditional"
        reason = ", ".join(patterns)
    else:
        status = "always"
        reason = "no paths; loaded every turn"
    return Rule(
        id=rule_id,
        path=path,
        scope=scope,
        root=root,
        body=parsed.body,
        patterns=patterns,
        priority=parsed.priority,
        status=status,
        reason=reason,
        name=parsed.name,
        description=parsed.description,
    )


# -- matching -------------------------------------------------------------------------------------

_PATTERN_FACTORY = "gitignore"
_compiled: dict[str, pathspec.RegexPattern] = {}


def _compile(pattern: str) -> pathspec.RegexPattern:
    global _PATTERN_FACTORY
    hit = _compiled.get(pattern)
    if hit is None:
        import pathspec  # only a run with conditional rules pays for it

        try:
            factory = pathspec.util.lookup_pattern(_PATTERN_FACTORY)
        except KeyError:  # pathspec < 1.0 only knows the older name
            _PATTERN_FACTORY = "gitwildmatch"
            factory = pathspec.util.lookup_pattern(_PATTERN_FACTORY)
        made = factory(pattern)
        # Both gitignore factories build regex patterns; the check narrows the type for `.regex`.
        assert isinstance(made, pathspec.RegexPattern)
        hit = _compiled[pattern] = made
    return hit


# req: R8
def _sort_key(rule: Rule) -> tuple[int, int, str]:
    return (-rule.priority, _SCOPE_RANK[rule.scope], rule.id)


class RuleSet:
    """Discovered rules: `.all` is the catalog (inactive included), `.active` the loaded ones."""

    def __init__(self, rules: list[Rule], project_root: Path) -> None:
        self.project_root = project_root
        self.active: list[Rule] = sorted((r for r in rules if r.is_active), key=_sort_key)
        inactive = sorted((r for r in rules if not r.is_active), key=_sort_key)
        self.all: list[Rule] = self.active + inactive
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


@dataclass
class _Node:
    patterns: list[str] = field(default_factory=list)
    children: dict[str, _Node] = field(default_factory=dict)


class _Matcher:
    """Each distinct pattern is compiled once and filed in a trie under its literal leading
    folders, so a path is only tested against patterns that could match it."""

    def __init__(self, rules: list[Rule]) -> None:
        self._rules = rules
        self._regex: dict[str, re.Pattern[str]] = {}
        self._negating: dict[int, pathspec.PathSpec[pathspec.RegexPattern]] = {}
        self._trie = _Node()
        self._rules_of: dict[str, list[int]] = {}
        for index, rule in enumerate(rules):
            compiled = [_compile(p) for p in rule.patterns]
            if any(c.include is False for c in compiled):
                import pathspec

                # Gitignore negation needs ordered evaluation: keep a per-rule spec for these.
                self._negating[index] = pathspec.PathSpec(compiled)
                continue
            for pattern, c in zip(rule.patterns, compiled, strict=True):
                if not c.include or c.regex is None:
                    continue
                if pattern not in self._regex:
                    self._regex[pattern] = c.regex
                    node = self._trie
                    for segment in literal_prefix(pattern):
                        node = node.children.setdefault(segment, _Node())
                    node.patterns.append(pattern)
                self._rules_of.setdefault(pattern, []).append(index)

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
        matched = {p for p in self._candidates(rel) if self._regex[p].match(rel)}
        hit = {i for p in matched for i in self._rules_of[p]}
        first = {i: next(p for p in self._rules[i].patterns if p in matched) for i in hit}
        for index, spec in self._negating.items():
            result = spec.check_file(rel)
            if result.include and result.index is not None:
                first[index] = self._rules[index].patterns[result.index]
        return [(self._rules[i], first[i]) for i in sorted(first)]
