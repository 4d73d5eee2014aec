"""004 §11's functions beside the agent: git queries, file search and the prompt history.

The git functions run the same hardened `git` the agent's worktrees use (no repository config
may run a program), each in a thread; a folder that is no repository answers False / None,
never an exception. `file_search` walks a folder as the Glob tool does (`.gitignore` honoured)
and can look inside the files; `PromptHistoryManager` is the app's input history
(`~/.wave/history.jsonl`, per project), so a program's prompts come back with Up in the app.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from pathlib import Path

from wave_tui.config.git_command import UnsafeRepositoryError, run_hardened_git
from wave_tui.config.paths import WavePaths
from wave_tui.session.input_history import append_history, load_history
from wave_tui.tools.glob_tool import compile_glob, walk_files

GIT_TIMEOUT_S = 10.0
SEARCH_READ_LIMIT_BYTES = 1024 * 1024  # files larger than this are not looked inside

PathLike = str | os.PathLike[str]


def _git_sync(path: PathLike, *args: str) -> str | None:
    """git's stdout (stripped), or None when it failed or cannot run here."""
    cwd = Path(path).expanduser()
    if not cwd.is_dir():
        return None
    try:
        done = run_hardened_git(cwd, *args, timeout=GIT_TIMEOUT_S)
    except (UnsafeRepositoryError, OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


async def _git(path: PathLike, *args: str) -> str | None:
    return await asyncio.to_thread(_git_sync, path, *args)


async def _git_path(path: PathLike, *args: str) -> Path | None:
    out = await _git(path, "rev-parse", "--path-format=absolute", *args)
    return Path(out) if out else None


# req: SX10
async def is_git_repository(path: PathLike) -> bool:
    """Whether `path` is inside a git work tree."""
    return await _git(path, "rev-parse", "--is-inside-work-tree") == "true"


async def get_git_repo_root(path: PathLike) -> Path | None:
    """The top of the work tree `path` is in (a linked worktree's own top)."""
    return await _git_path(path, "--show-toplevel")


async def resolve_git_dir(path: PathLike) -> Path | None:
    """The git dir of the work tree `path` is in (`.git`, or a worktree's `.git/worktrees/x`)."""
    return await _git_path(path, "--git-dir")


async def get_git_common_dir(path: PathLike) -> Path | None:
    """The repository's `.git` folder, shared by all its worktrees."""
    return await _git_path(path, "--git-common-dir")


async def get_git_main_repo_root(path: PathLike) -> Path | None:
    """The main checkout's top, also from inside a linked worktree."""
    common = await get_git_common_dir(path)
    if common is None:
        return None
    return common.parent if common.name == ".git" else await get_git_repo_root(path)


async def get_default_remote_branch(path: PathLike, remote: str = "origin") -> str | None:
    """The remote's default branch as last fetched (`main`), without asking the network."""
    out = await _git(path, "symbolic-ref", "--quiet", "--short", f"refs/remotes/{remote}/HEAD")
    return out.removeprefix(f"{remote}/") if out else None


async def has_uncommitted_changes(path: PathLike) -> bool:
    """Changed, staged or untracked files in the work tree."""
    out = await _git(path, "status", "--porcelain", "--untracked-files=all")
    return bool(out)


async def has_new_commits(path: PathLike, base: str | None = None) -> bool:
    """Commits on HEAD that `base` lacks (default: the remote's default branch; False when
    there is none)."""
    if base is None:
        branch = await get_default_remote_branch(path)
        if branch is None:
            return False
        base = f"origin/{branch}"
    out = await _git(path, "rev-list", "--count", f"{base}..HEAD")
    return out is not None and out.isdigit() and int(out) > 0


def _search(
    where: PathLike, pattern: str, content: re.Pattern[str] | None, limit: int
) -> list[Path]:
    root = Path(where).expanduser().resolve()
    if not root.is_dir():
        raise ValueError(f"not a folder: {root}")
    spec = compile_glob(pattern)
    found: list[Path] = []
    for path in walk_files(root):
        if len(found) >= limit:
            break
        if not spec.match_file(path.relative_to(root).as_posix()):
            continue
        if content is not None:
            try:
                if path.stat().st_size > SEARCH_READ_LIMIT_BYTES:
                    continue
                text = path.read_text(encoding="utf-8", errors="ignore")
            except OSError:
                continue
            if content.search(text) is None:
                continue
        found.append(path)
    return sorted(found)


async def file_search(
    root: PathLike, pattern: str = "**/*", *, content: str | None = None, limit: int = 100
) -> list[Path]:
    """Files under `root` matching the glob `pattern` (`.gitignore`d files left out), and when
    `content` (a regular expression) is given, only those whose text matches it."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    compiled = re.compile(content) if content is not None else None
    return await asyncio.to_thread(_search, root, pattern, compiled, limit)


class PromptHistoryManager:
    """The prompts typed in a project (the app's Up-arrow history), oldest first."""

    def __init__(self, workdir: PathLike | None = None) -> None:
        root = Path(workdir).expanduser() if workdir is not None else Path.cwd()
        self._paths = WavePaths.for_workdir(root.resolve())

    async def entries(self) -> list[str]:
        paths = self._paths
        return await asyncio.to_thread(load_history, paths.input_history, paths.project_root)

    async def add(self, text: str) -> None:
        """Remember `text` (a text holding a secret is not written)."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("text must be a non-empty str")
        paths = self._paths
        await asyncio.to_thread(append_history, paths.input_history, paths.project_root, text)
