"""Finding rule files and turning them into a RuleSet: roots, walk, precedence, cache (R1, R7–R10).

Roots, highest precedence first: `<project>/.wave/rules`, `<project>/.claude/rules`,
`~/.wave/rules`, `~/.claude/rules`. Every `*.md` below a root is a rule (recursively; symlinks to
files and folders are followed, cycles are cut by a visited set of real folder paths, broken links
are skipped with a warning). A rule's id is its path relative to its root (posix); a rule whose id
already came from a higher-precedence root is kept in the catalog as *inactive* ("overridden by").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from stat import S_ISDIR, S_ISREG

from wave_tui.config.paths import WavePaths, display_path
from wave_tui.memory.rule_match import Rule, RuleSet, Scope, Status
from wave_tui.memory.rule_parse import ParsedRuleFile, parse_rule_file

Warn = Callable[[str], None]

MAX_DEPTH = 64


# A rule file as the walk found it: (path as found below its root, symlinks not resolved; real
# path; mtime_ns; size; inode). Also its part of the walk's signature and its key in the cache.
# A plain tuple, not a NamedTuple: made in C, and the collector stops tracking a tuple of str and
# int (a cold walk of 10k rules leaves nothing for later collections to traverse).
_Found = tuple[str, str, int, int, int]

_Tell = Callable[[str, str], None]  # a rule file's path as found and one problem with it


class RuleCache:
    """Built rules keyed by the file as found (path, real path, mtime_ns, size, inode) per root,
    the folders the last walk listed, and the warnings already shown.

    Keep one per session so re-discovery every turn is cheap and an edited rule is picked up.
    """

    def __init__(self) -> None:
        self._rules: dict[tuple[Path, Scope], dict[_Found, Rule]] = {}
        # Only the files whose content has something to report, told on every build.
        self._problems: dict[tuple[Path, Scope], dict[_Found, ParsedRuleFile]] = {}
        self._warned: set[str] = set()
        # The last RuleSet and the stat signature of the walk it came from: unchanged files ⇒
        # the same object, so nothing is re-parsed and its compiled matcher is reused.
        self._last: tuple[tuple[object, ...], RuleSet] | None = None
        # Every folder the last walk listed (or tried to), and the folders symlinked rules point
        # into: what a watch must cover for a change to any rule to show.
        self.listed: list[str] = []

    def ruleset(self, signature: tuple[object, ...], build: Callable[[], RuleSet]) -> RuleSet:
        if self._last is not None and self._last[0] == signature:
            return self._last[1]
        ruleset = build()
        self._last = (signature, ruleset)
        return ruleset

    def rules(self, root: Path, scope: Scope, found_here: list[_Found], tell: _Tell) -> list[Rule]:
        """The rules of one root's files, each parsed only when it is new or moved; `tell` gets
        every file's problems on every build (the caller's note tells each once)."""
        old = self._rules.get((root, scope), {})
        old_problems = self._problems.get((root, scope), {})
        kept: dict[_Found, Rule] = {}
        problems: dict[_Found, ParsedRuleFile] = {}
        prefix = len(str(root)) + 1
        for found in found_here:
            path, real, _, size, _ = found
            rule = old.get(found) if old else None
            parsed = old_problems.get(found) if old_problems else None
            if rule is None:
                try:
                    parsed = parse_rule_file(real, size)
                except OSError as exc:
                    tell(path, f"cannot read ({exc.strerror or exc})")
                    continue
                rule = _make_rule(path, path[prefix:], scope, root, parsed)
            kept[found] = rule
            if parsed is not None and (parsed.problems or parsed.fatal is not None):
                problems[found] = parsed
                for problem in parsed.problems:
                    tell(path, problem)
                if parsed.fatal is not None:
                    tell(path, f"{parsed.fatal}; rule not loaded")
        self._rules[(root, scope)] = kept
        self._problems[(root, scope)] = problems
        return list(kept.values())

    def warn_once(self, warn: Warn, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            warn(message)


# -- discovery ------------------------------------------------------------------------------------


class _Walk:
    """One walk over the rule roots: the files found and the folders listed."""

    def __init__(self, display: Callable[[Path], str], note: Warn) -> None:
        self.display = display
        self.note = note
        self.found: list[_Found] = []
        self.listed: list[str] = []
        self._visited: set[str] = set()

    def root(self, root: Path) -> list[_Found]:
        """The rule files below `root` (none when it is not a folder)."""
        try:
            real_root = os.path.realpath(root)
            if not os.path.isdir(real_root):
                return []
        except OSError:
            return []
        start = len(self.found)
        self._visited = {real_root}
        self._folder(str(root), real_root, 0)
        return self.found[start:]

    # req: R7
    def _folder(self, folder: str, real_folder: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.note(
                f"{self.display(Path(folder))}: rules folder nested too deep; not descending further"
            )
            return
        self.listed.append(folder)
        try:
            with os.scandir(folder) as it:
                entries = list(it)  # no sort: RuleSet orders by priority, scope and id
        except OSError as exc:
            self.note(
                f"{self.display(Path(folder))}: cannot list rules folder ({exc.strerror or exc})"
            )
            return
        for entry in entries:
            path = entry.path
            try:
                is_link = entry.is_symlink()
                if is_link:
                    real = os.path.realpath(path, strict=True)
                    st = os.stat(real)
                elif entry.is_dir(follow_symlinks=False):
                    self._subfolder(path, os.path.join(real_folder, entry.name), depth)
                    continue
                elif not entry.name.endswith(".md"):
                    continue  # neither a rule nor a folder: not even a stat
                else:
                    real = path
                    st = entry.stat(follow_symlinks=False)
            except (OSError, RuntimeError):
                self.note(f"{self.display(Path(path))}: broken symlink skipped")
                continue
            if S_ISDIR(st.st_mode):
                self._subfolder(path, real, depth)
            elif S_ISREG(st.st_mode) and entry.name.endswith(".md"):
                self.found.append((path, real, st.st_mtime_ns, st.st_size, st.st_ino))
                if is_link:
                    self.listed.append(os.path.dirname(real))  # its target's folder holds it

    def _subfolder(self, path: str, real: str, depth: int) -> None:
        if real in self._visited:
            self.note(f"{self.display(Path(path))}: symlink cycle (folder already visited) skipped")
            return
        self._visited.add(real)
        self._folder(path, real, depth + 1)


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
    show = lambda p: display_path(p, paths.project_root, paths.home)  # noqa: E731
    walk = _Walk(show, note)
    found_by_root = [(root, scope, walk.root(root)) for root, scope in rule_roots(paths)]
    cache.listed = walk.listed
    # Nothing on disk moved (same files, same mtimes/sizes/inodes) ⇒ the same RuleSet, with its
    # compiled matcher: per request this costs the walk's stat calls and nothing else.
    key = (paths.project_root, *walk.found)
    return cache.ruleset(key, lambda: _build(paths, cache, found_by_root, show, note))


def _build(
    paths: WavePaths,
    cache: RuleCache,
    found_by_root: list[tuple[Path, Scope, list[_Found]]],
    show: Callable[[Path], str],
    note: Warn,
) -> RuleSet:
    tell = lambda path, problem: note(f"{show(Path(path))}: {problem}")  # noqa: E731
    winners: dict[str, Rule] = {}
    rules: list[Rule] = []
    for root, scope, found_here in found_by_root:
        for rule in cache.rules(root, scope, found_here, tell):
            winner = winners.get(rule.id)
            if winner is not None:
                rule = rule._replace(status="inactive", reason=f"overridden by {show(winner.path)}")
            else:
                winners[rule.id] = rule
            rules.append(rule)
    return RuleSet(rules, paths.project_root)


def _make_rule(path: str, rel: str, scope: Scope, root: Path, parsed: ParsedRuleFile) -> Rule:
    patterns = parsed.patterns
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
        id=rel.replace(os.sep, "/") if os.sep != "/" else rel,
        location=path,
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
