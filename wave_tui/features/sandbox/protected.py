"""What stays read-only inside a writable folder of the sandbox: wave's own configuration, git's.

A sandboxed command runs without asking because what it can change is bounded. Bounded it is
not if it can rewrite what decides that bound or runs code later: `.wave/` (settings that turn
the sandbox off or allow every command, hooks, commands, agents, skills), `.claude/`,
`.mcp.json` (servers started as programs), `.git/hooks` and `.git/config` (programs git runs
for the user, `core.fsmonitor` on every `git status`), a `.git` file (where git looks for all
that). They are bound read-only over the writable project. A missing `.wave`, `.claude` or
`.git/hooks` folder gets an empty read-only one, so that nothing can be created under it (bwrap
leaves the empty folder behind as its mount point: harmless, and git does not list it). The
worktrees under `.wave/worktrees/` are work, not configuration: bound writable again, each with
its own configuration read-only.

In the home folder, when a writable folder holds it (a project opened at `~`), every dotfile and
dot-folder (`~/.bashrc`, `~/.ssh`, `~/.wave`, `~/.config`, …) is bound read-only too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

CONFIG_DIRS = (".wave", ".claude")
CONFIG_FILES = (".mcp.json",)
WORKTREES = Path(".wave") / "worktrees"


def _ro_dir(path: Path, *, placeholder: bool) -> list[str]:
    if path.is_dir():
        return ["--ro-bind", str(path), str(path)]
    if placeholder and not os.path.lexists(path):
        return ["--tmpfs", str(path), "--remount-ro", str(path)]
    return []


def _ro_file(path: Path) -> list[str]:
    return ["--ro-bind", str(path), str(path)] if path.is_file() else []


def _git_args(root: Path, *, placeholder: bool) -> list[str]:
    dot_git = root / ".git"
    if dot_git.is_file():
        return _ro_file(dot_git)
    if not dot_git.is_dir():
        return []
    return [
        *_ro_dir(dot_git / "hooks", placeholder=placeholder),
        *_ro_file(dot_git / "config"),
        *_ro_file(dot_git / "config.worktree"),
    ]


def _root_args(root: Path, *, placeholder: bool) -> list[str]:
    args: list[str] = []
    for name in CONFIG_DIRS:
        args += _ro_dir(root / name, placeholder=placeholder)
    for name in CONFIG_FILES:
        args += _ro_file(root / name)
    return args + _git_args(root, placeholder=placeholder)


def _worktree_args(root: Path) -> list[str]:
    folder = root / WORKTREES
    if folder.is_symlink() or not folder.is_dir():
        return []
    args = ["--bind", str(folder), str(folder)]
    try:
        trees = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return args
    for tree in trees:
        args += _root_args(tree, placeholder=False)
    return args


# req: HR1
def protected_args(project: Path, others: Sequence[Path]) -> list[str]:
    """bwrap arguments, after the writable binds: the configuration of the project (placeholders
    for what is missing) and of the other writable folders (what exists) read-only."""
    args = _root_args(project, placeholder=True) + _worktree_args(project)
    for folder in others:
        args += _root_args(folder, placeholder=False)
    return args


# req: HR5
def home_args(home: Path, writable: Sequence[Path]) -> list[str]:
    """Every dot entry of the home folder read-only, when a writable folder holds the home."""
    if not any(home == w or w in home.parents for w in writable):
        return []
    try:
        entries = sorted(p for p in home.iterdir() if p.name.startswith("."))
    except OSError:
        return []
    args: list[str] = []
    for entry in entries:
        if entry.is_dir() or entry.is_file():
            args += ["--ro-bind", str(entry), str(entry)]
    return args
