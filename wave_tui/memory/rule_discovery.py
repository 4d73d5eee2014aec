"""Finding rule files and turning them into a RuleSet: roots, walk, precedence, cache (R1, R7–R10).

Roots, highest precedence first: `<project>/.wave/rules`, `<project>/.claude/rules`,
`~/.wave/rules`, `~/.claude/rules`. Every `*.md` below a root is a rule (recursively; symlinks to
files and folders are followed, cycles are cut by a visited set of real folder paths, broken links
are skipped with a warning). A rule's id is its path relative to its root (posix); a rule whose id
already came from a higher-precedence root is kept in the catalog as *inactive* ("overridden by").
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from wave_tui.config.paths import WavePaths, display_path
from wave_tui.config.records import record
from wave_tui.memory.rule_match import Rule, RuleSet, Scope, Status
from wave_tui.memory.rule_parse import ParsedRuleFile, parse_rule_file

Warn = Callable[[str], None]

MAX_DEPTH = 64


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
        parsed = parse_rule_file(real)
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
        if found.real != found.path:
            rule = replace(rule, linked=True)
        self._rules[key] = (parsed, rule)
        return rule

    def warn_once(self, warn: Warn, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            warn(message)


# -- discovery ------------------------------------------------------------------------------------


@record(bulk=True)
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
