"""The work tree's top and the repository's common dir, read from the file system where that is
exactly what `git rev-parse --show-toplevel --git-common-dir` would print; None where git must be
asked.

Every start-up needs the two (the project id, auto memory of a linked work tree); a git process
costs a fork and an exec. The file system answers for the layouts git's discovery settles at
once: a `.git` folder that is a repository, a `.git` file pointing at a linked work tree's or a
submodule's git dir, or no `.git` up to the root. Anything git's discovery would weigh further —
`GIT_*` variables, a bare repository, a `core.worktree`, a folder owned by another user
(`safe.directory`), a crossing into another file system — is left to git itself.
"""

from __future__ import annotations

import os
from pathlib import Path

from wave_tui.config.records import record

_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES")
_GIT_ENV_ACROSS = "GIT_DISCOVERY_ACROSS_FILESYSTEM"


@record
class GitLayout:
    """What git would print: the work tree's top and the common dir (None: not in a repository)."""

    top: str | None
    common: str | None


def read_git_layout(start: Path) -> GitLayout | None:
    """The layout from the file system, or None when only git can say."""
    if any(name in os.environ for name in (*_GIT_ENV, _GIT_ENV_ACROSS)):
        return None
    try:
        here = start.resolve()
        device, owner = _stat(here)
    except OSError:
        return None
    for folder in (here, *here.parents):
        try:
            folder_device, folder_owner = _stat(folder)
        except OSError:
            return None
        if folder_device != device or folder_owner != owner:
            return None  # another file system, or another user's folder: git's own checks
        if is_git_dir(folder):
            return None  # a bare repository (or a git dir itself): git knows its rules
        dot = folder / ".git"
        if dot.is_symlink():
            return None
        if dot.is_dir():
            return _from_git_folder(folder, dot)
        if dot.is_file():
            return _from_git_file(folder, dot)
        if os.path.lexists(dot):
            return None  # something odd: let git decide
    return GitLayout(None, None)


def _stat(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_dev, info.st_uid


def is_git_dir(folder: Path) -> bool:
    """What git's discovery accepts as a repository: HEAD, objects/ and refs/ (is_git_directory)."""
    return (
        (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()
    )


def _from_git_folder(top: Path, git_dir: Path) -> GitLayout | None:
    if not is_git_dir(git_dir) or (git_dir / "commondir").exists():
        return None  # an empty `.git/` (git walks on) or an unusual layout
    if _sets_worktree(git_dir / "config"):
        return None
    return GitLayout(str(top), str(git_dir))


def _from_git_file(top: Path, pointer: Path) -> GitLayout | None:
    try:
        text = pointer.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    git_dir = (top / text[len("gitdir:") :].strip()).resolve()
    if not (git_dir / "HEAD").is_file():
        return None
    common_file = git_dir / "commondir"
    if common_file.is_file():  # a linked work tree: its git dir names the shared one
        try:
            common = (git_dir / common_file.read_text(encoding="utf-8").strip()).resolve()
        except (OSError, UnicodeDecodeError):
            return None
    else:  # a submodule: its git dir is its own common dir
        common = git_dir
    if not is_git_dir(common):
        return None
    if _sets_worktree(common / "config") or _sets_worktree(git_dir / "config.worktree"):
        return None
    return GitLayout(str(top), str(common))


def _sets_worktree(config: Path) -> bool:
    """Whether a git config may move the work tree (`core.worktree`): then git must be asked."""
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return "worktree" in text.lower()
