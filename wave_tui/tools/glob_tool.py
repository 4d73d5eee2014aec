"""Glob: list files by name pattern, newest first. Also home of the project-file walker Grep reuses."""

from __future__ import annotations

import asyncio
import heapq
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from wave_tui.files import globbing
from wave_tui.files.globbing import BraceLimitError, gitignore_spec
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult, resolve_path

if TYPE_CHECKING:
    import pathspec

DEFAULT_LIMIT = 100
VCS_DIRS = frozenset({".git", ".hg", ".svn"})
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
RG_TIMEOUT_S = 60.0

DESCRIPTION = """\
Find files by glob pattern, e.g. "**/*.py", "src/**/*.ts" or "*.md" (a pattern without "/" \
matches file names at any depth).
- Returns absolute paths, most recently modified first, one per line.
- path: directory to search (default: the working directory).
- Files ignored by .gitignore are skipped.
- Use Grep to search file contents."""


def find_ripgrep() -> str | None:
    """The `rg` binary: on PATH, or installed next to this Python (the `ripgrep` wheel's venv bin)."""
    found = shutil.which("rg")
    if found:
        return found
    candidate = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    return str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None


MAX_BRACE_EXPANSIONS = 1000


def expand_braces(pattern: str) -> list[str]:
    """`**/*.{ts,py}` -> `**/*.ts`, `**/*.py` (ripgrep's alternation, nested groups too); a
    pattern past the brace limits is a ToolError for the model."""
    try:
        return globbing.expand_braces(pattern, limit=MAX_BRACE_EXPANSIONS)
    except BraceLimitError as exc:
        raise ToolError(f"Glob {exc.pattern!r} {exc}.") from exc


def compile_glob(*patterns: str) -> pathspec.PathSpec[pathspec.Pattern]:
    """A matcher with ripgrep's --glob semantics (gitignore-style, relative to the search root,
    `{a,b}` alternation)."""
    return gitignore_spec(alt for pattern in patterns for alt in expand_braces(pattern))


class _IgnoreRules:
    """Ignore files that apply to one directory, matched relative to that directory."""

    def __init__(self, base: Path, spec: pathspec.PathSpec[pathspec.Pattern]) -> None:
        self.base = base
        self.spec = spec

    def verdict(self, path: Path, is_dir: bool) -> bool | None:
        """True = ignored, False = re-included by a negation, None = no rule applies."""
        rel = path.relative_to(self.base).as_posix() + ("/" if is_dir else "")
        decision: bool | None = None
        for pattern in self.spec.patterns:
            if pattern.include is not None and pattern.match_file(rel) is not None:
                decision = pattern.include
        return decision


def _load_rules(directory: Path) -> _IgnoreRules | None:
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            lines += (directory / name).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return _IgnoreRules(directory, gitignore_spec(lines)) if lines else None


def _ignored(path: Path, is_dir: bool, rules: list[_IgnoreRules]) -> bool:
    for rule in reversed(rules):  # the deepest ignore file wins, as in git
        if path.is_relative_to(rule.base) and path != rule.base:
            verdict = rule.verdict(path, is_dir)
            if verdict is not None:
                return verdict
    return False


def walk_files(root: Path) -> Iterator[Path]:
    """Every file under `root` that ripgrep would search: hidden files included, VCS folders and
    ignore-file matches (.gitignore/.ignore/.rgignore, in `root` and its ancestors) excluded."""
    ancestors = [r for d in reversed(root.parents) if (r := _load_rules(d)) is not None]

    def walk(directory: Path, rules: list[_IgnoreRules]) -> Iterator[Path]:
        own = _load_rules(directory)
        active = [*rules, own] if own else rules
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name not in VCS_DIRS and not _ignored(path, True, active):
                    yield from walk(path, active)
            elif entry.is_file() and not _ignored(path, False, active):
                yield path

    yield from walk(root, ancestors)


# req: SP6
def vcs_excludes() -> list[str]:
    """ripgrep's globs that keep VCS folders out. They go after the caller's globs: in ripgrep
    the last matching glob wins, so a `*` or `**` given later would bring `.git/` back."""
    return [f"--glob=!{d}" for d in sorted(VCS_DIRS)]


def _split_absolute_pattern(pattern: str) -> tuple[Path | None, str]:
    """`/abs/dir/**/*.py` -> (/abs/dir, `**/*.py`): models often send absolute patterns."""
    if not pattern.startswith("/"):
        return None, pattern
    parts = Path(pattern).parts
    for i, part in enumerate(parts):
        if any(c in part for c in "*?[{"):
            return Path(*parts[:i]), "/".join(parts[i:])
    return Path(*parts[:-1]), parts[-1]


def _rg_list(rg: str, root: Path, pattern: str) -> list[str]:
    cmd = [rg, "--files", "--hidden", "--no-require-git", "--no-config", "--no-messages"]
    for alternative in expand_braces(pattern):  # as in the fallback; rg rejects nested groups
        cmd += ["--glob", alternative]
    cmd += vcs_excludes()
    try:
        proc = subprocess.run(
            cmd, cwd=root, capture_output=True, timeout=RG_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired as exc:
        raise ToolError(f"Glob timed out after {RG_TIMEOUT_S:.0f}s; use a narrower path.") from exc
    if proc.returncode not in (0, 1):
        message = proc.stderr.decode("utf-8", "replace").strip()
        raise ToolError(f"Glob failed: {message or f'ripgrep exit code {proc.returncode}'}")
    out = proc.stdout.decode("utf-8", "surrogateescape")
    # File names may contain \x0c, \x85, U+2028 ...: split at "\n" only. Plain strings: a
    # Path per line costs more than the stat that follows, at 100k matches.
    base = os.path.join(os.fspath(root), "")
    return [base + line for line in out.split("\n") if line]


def _python_list(root: Path, pattern: str) -> list[str]:
    spec = compile_glob(pattern)
    return [str(p) for p in walk_files(root) if spec.match_file(p.relative_to(root).as_posix())]


def _newest_first(paths: list[str], limit: int) -> list[str]:
    """The `limit` most recently modified of `paths`, newest first (ties by path): every path is
    statted once, and only the shown ones are ordered (a bounded heap, not a sort of all)."""

    def key(path: str) -> tuple[int, str]:
        try:
            return (-os.stat(path).st_mtime_ns, path)
        except OSError:
            return (0, path)

    return [path for _, path in heapq.nsmallest(limit, map(key, paths))]


@tool_arguments
class GlobArgs:
    pattern: Annotated[str, Arg('Glob pattern, e.g. "**/*.py".')]
    path: Annotated[str | None, Arg("Directory to search in (default: the working directory).")] = (
        None
    )
    limit: Annotated[
        int, Arg(f"Maximum number of paths to return (default {DEFAULT_LIMIT}).", minimum=1)
    ] = DEFAULT_LIMIT


class GlobTool(TypedTool[GlobArgs]):
    name = "Glob"
    description = DESCRIPTION
    read_only = True
    arguments = GlobArgs

    def __init__(self, *, use_ripgrep: bool = True, rg_path: str | None = None) -> None:
        self.rg_path = (rg_path or find_ripgrep()) if use_ripgrep else None

    async def call(self, args: GlobArgs, ctx: ToolContext) -> ToolResult:
        limit = args.limit
        if not args.pattern.strip():
            raise ToolError("pattern must not be empty.")
        abs_root, pattern = _split_absolute_pattern(args.pattern)
        root = abs_root or resolve_path(args.path or ".", ctx.workdir)
        if not root.exists():
            raise ToolError(f"Directory does not exist: {root}")
        if not root.is_dir():
            raise ToolError(f"{root} is not a directory.")

        def search() -> tuple[list[str], int]:
            found = (
                _rg_list(self.rg_path, root, pattern)
                if self.rg_path
                else _python_list(root, pattern)
            )
            return _newest_first(found, limit), len(found)

        shown, total = await asyncio.to_thread(search)
        if not shown:
            return ToolResult(content="No files found", summary="No files found")
        content = "\n".join(shown)
        if total > limit:
            content += (
                f"\n\n(Showing the {limit} most recently modified of {total} files. "
                "Use a more specific pattern or path to narrow the results.)"
            )
        return ToolResult(content=content, summary=f"Found {total} file{'s' if total != 1 else ''}")
