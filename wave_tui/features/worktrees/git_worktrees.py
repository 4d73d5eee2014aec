"""Git worktrees as the session uses them: `.wave/worktrees/<name>` on branch `wave/<name>`,
made from the base `worktree.baseRef` names, checked for uncommitted work, removed.

Plain blocking functions over `git` (the caller runs them in a thread); every failure is a
`WorktreeError` whose message is the one line the model or the user sees.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, get_args

from wave_tui.config.git_command import (
    UPLOAD_PACK_OPTION,
    UnsafeRepositoryError,
    run_hardened_git,
)
from wave_tui.files.no_follow import LinkOnPathError, open_folder_no_follow, write_text_no_follow

WorktreeBaseRef = Literal["fresh", "head"]
DEFAULT_BASE_REF: WorktreeBaseRef = "fresh"
SETTINGS_KEY = "worktree"  # settings `worktree.baseRef` (read here: the schema leaves it to us)
WORKTREES_DIR = Path(".wave") / "worktrees"
BRANCH_PREFIX = "wave/"
GIT_TIMEOUT_S = 60.0
FETCH_TIMEOUT_S = 20.0
# A name is one path segment git accepts as a branch part: no `/`, no `..`, no spaces.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# The worktrees folder ignores itself, so the main checkout's `git status` stays clean.
_IGNORE_ALL = "*\n"


class WorktreeError(RuntimeError):
    """A worktree could not be made, found or removed: one clear line."""


def _git_dir(cwd: Path) -> Path | None:
    """The git dir of the checkout at `cwd` (a `.git` folder, or where a `.git` file points)."""
    dot = cwd / ".git"
    if dot.is_dir():
        return dot
    try:
        text = dot.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return cwd / text[len("gitdir:") :].strip() if text.startswith("gitdir:") else None


def _git(cwd: Path, *args: str, timeout: float = GIT_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    try:
        return run_hardened_git(cwd, *args, timeout=timeout, repository=_git_dir(cwd))
    except UnsafeRepositoryError as exc:
        raise WorktreeError(str(exc)) from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise WorktreeError(f"git could not run: {exc}") from exc


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


# req: WT1
def check_name(name: str) -> str:
    """`name` as a worktree name, or the reason it is not one."""
    if not _NAME.fullmatch(name) or ".." in name or name.endswith((".lock", ".")):
        raise WorktreeError(
            f"invalid worktree name {name!r}: use letters, digits, '.', '_' or '-' "
            "(no '/', '..' or spaces)"
        )
    return name


def worktree_name_problem(name: str) -> str | None:
    """Why `name` cannot name a worktree, or None (the command line says it before starting)."""
    try:
        check_name(name)
    except WorktreeError as exc:
        return str(exc)
    return None


def new_name() -> str:
    """A name for a worktree the model did not name."""
    return f"wt-{secrets.token_hex(3)}"


def repository_root(workdir: Path) -> Path:
    """The main repository's root for `workdir` (a linked worktree's main checkout too)."""
    out = _git(workdir, "rev-parse", "--path-format=absolute", "--git-common-dir")
    if out.returncode != 0:
        raise WorktreeError(f"not a git repository: {workdir}")
    common = Path(out.stdout.strip())
    if common.name != ".git":
        raise WorktreeError(f"a bare repository has no work tree for a worktree: {common}")
    return common.parent


def worktree_path(repo_root: Path, name: str) -> Path:
    return repo_root / WORKTREES_DIR / name


# req: HR4
def _real_worktree_folder(repo_root: Path, name: str) -> Path | None:
    """`.wave/worktrees/<name>` of the real `repo_root` when it is there; None when it is not.
    A link on the way (`.wave`, `.wave/worktrees`, the worktree itself) or a path that leaves
    the project is refused: a committed link would move the session, or git's checkout, out."""
    root = repo_root.resolve()
    path = root
    for part in (*WORKTREES_DIR.parts, name):
        path = path / part
        if path.is_symlink():
            raise WorktreeError(
                f"{path.relative_to(root)} is a symbolic link; a worktree folder must be a real "
                "folder inside the project"
            )
        if not path.exists():
            return None
        if not path.is_dir():
            raise WorktreeError(f"{path.relative_to(root)} is not a folder")
    if not path.resolve().is_relative_to(root):
        raise WorktreeError(f"{path} is outside the project")
    return path


def existing_worktree(repo_root: Path, name: str) -> Path | None:
    """The worktree folder of `name` when it is there already (a real folder in the project)."""
    return _real_worktree_folder(repo_root, name)


# req: HR4
def _make_worktrees_folder(repo_root: Path) -> Path:
    """`.wave/worktrees` made without following a link (it ignores itself, so the main
    checkout's `git status` stays clean)."""
    folder = repo_root.resolve() / WORKTREES_DIR
    try:
        os.close(open_folder_no_follow(folder, create=True))
        ignore = folder / ".gitignore"
        if not ignore.is_file() or ignore.is_symlink():
            write_text_no_follow(ignore, _IGNORE_ALL)
    except LinkOnPathError as exc:
        raise WorktreeError(
            f"{WORKTREES_DIR} leads through a symbolic link; a worktree folder must be a real "
            "folder inside the project"
        ) from exc
    except OSError as exc:
        raise WorktreeError(f"cannot make {folder}: {exc.strerror or exc}") from exc
    return folder


def hook_worktree_path(raw: str) -> Path:
    """The folder a WorktreeCreate hook printed, checked."""
    path = Path(raw).expanduser().resolve()
    if not path.is_dir():
        raise WorktreeError(f"the WorktreeCreate hook's path is no folder: {path}")
    return path


def branch_name(name: str) -> str:
    return f"{BRANCH_PREFIX}{name}"


# req: WT2
def base_ref_setting(extras: Mapping[str, Any]) -> tuple[WorktreeBaseRef, str | None]:
    """`worktree.baseRef` from the settings (default `fresh`), and a problem line when the
    value is not one wave knows."""
    section = extras.get(SETTINGS_KEY)
    value = section.get("baseRef") if isinstance(section, Mapping) else None
    if value is None:
        return DEFAULT_BASE_REF, None
    for known in get_args(WorktreeBaseRef):
        if value == known:
            return known, None
    return (
        DEFAULT_BASE_REF,
        f"settings worktree.baseRef {value!r} is not fresh or head; using fresh",
    )


def resolve_base(repo_root: Path, base_ref: WorktreeBaseRef) -> str:
    """The commit-ish a new worktree starts from: `head` is HEAD; `fresh` is
    `origin/<default branch>` (fetched first) when the remote has one, else HEAD."""
    if base_ref == "head":
        return "HEAD"
    remote_head = _git(repo_root, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    branch = remote_head.stdout.strip().removeprefix("origin/")
    if remote_head.returncode != 0 or not branch:
        remote = _git(repo_root, "remote", "get-url", "origin")
        if remote.returncode != 0:
            return "HEAD"
        shown = _git(
            repo_root,
            "ls-remote",
            UPLOAD_PACK_OPTION,
            "--symref",
            "origin",
            "HEAD",
            timeout=FETCH_TIMEOUT_S,
        )
        match = re.search(r"ref: refs/heads/(\S+)\s+HEAD", shown.stdout)
        if match is None:
            return "HEAD"
        branch = match.group(1)
    # A failed fetch (offline) leaves the last known origin branch, if there is one.
    _git(
        repo_root, "fetch", UPLOAD_PACK_OPTION, "--quiet", "origin", branch, timeout=FETCH_TIMEOUT_S
    )
    known = _git(repo_root, "rev-parse", "--verify", "--quiet", f"refs/remotes/origin/{branch}")
    return f"origin/{branch}" if known.returncode == 0 else "HEAD"


def add_worktree(repo_root: Path, name: str, base: str) -> Path:
    """`git worktree add .wave/worktrees/<name> -b wave/<name> <base>`; its path."""
    path = worktree_path(repo_root.resolve(), name)
    if _real_worktree_folder(repo_root, name) is not None:
        raise WorktreeError(f"worktree {name!r} already exists: {path}")
    if _git(repo_root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}").returncode != 0:
        raise WorktreeError(f"no commit to start a worktree from ({base}): commit something first")
    _make_worktrees_folder(repo_root)
    out = _git(repo_root, "worktree", "add", str(path), "-b", branch_name(name), base)
    if out.returncode != 0:
        raise WorktreeError(f"git worktree add failed: {_first_line(out.stderr)}")
    made = _real_worktree_folder(repo_root, name)  # a link swapped in meanwhile is refused
    if made is None:
        raise WorktreeError(f"git worktree add made no folder at {path}")
    return made


# req: WT5
def uncommitted_work(path: Path) -> list[str]:
    """Changed, staged and untracked files of the worktree at `path` (`git status` lines)."""
    out = _git(path, "status", "--porcelain", "--untracked-files=all")
    if out.returncode != 0:
        raise WorktreeError(f"git status failed in {path}: {_first_line(out.stderr)}")
    return [line for line in out.stdout.splitlines() if line.strip()]


def remove_worktree(repo_root: Path, path: Path, name: str) -> str:
    """Remove the worktree (its changes too: the caller checked) and its branch unless it
    holds commits nothing else has; what happened to the branch, as a short clause."""
    out = _git(repo_root, "worktree", "remove", "--force", str(path))
    if out.returncode != 0:
        raise WorktreeError(f"git worktree remove failed: {_first_line(out.stderr)}")
    branch = branch_name(name)
    deleted = _git(repo_root, "branch", "-d", branch)
    if deleted.returncode == 0:
        return f"branch {branch} deleted"
    return f"branch {branch} kept (it has commits not merged elsewhere)"
