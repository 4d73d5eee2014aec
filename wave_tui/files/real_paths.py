"""The one place a tool's path argument becomes a real path, and the one containment test.

"Is this write inside the memory folder / the project / a safe zone" are security decisions:
they must all come from `resolve_tool_path` and `is_inside`, so they can never disagree.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

# How often a path whose links change under our feet is resolved again before it counts as
# naming no file.
_RACE_RETRIES = 5


def real_path(path: str | os.PathLike[str]) -> Path | None:
    """`os.path.realpath` (symlinks and `..` resolved), or None for input that names no file.

    A not-yet-existing tail is kept lexically after its nearest existing parent is resolved, and
    a dangling symlink resolves to its target, so neither can hide an escape.
    """
    try:
        text = os.fspath(path)
    except TypeError:
        return None
    if not isinstance(text, str) or not text or "\x00" in text:
        return None
    for _attempt in range(_RACE_RETRIES):
        try:
            # realpath itself can raise when a link on the path vanishes between its lstat and
            # its readlink (a swap in progress): look again, the path settles or names nothing.
            resolved = os.path.realpath(text)
        except OSError:
            continue
        except (ValueError, RuntimeError):
            return None
        try:
            os.stat(resolved)
        except FileNotFoundError:
            pass  # a file still to be created: its real path is lexical past the last parent
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return None  # a symlink loop names no file
        except (ValueError, RuntimeError):
            return None
        return Path(resolved)
    return None


def resolve_tool_path(raw: object, workdir: Path) -> Path | None:
    """The real absolute path a tool's path argument names (`~` expanded, relative to `workdir`).

    None when `raw` is not a usable path (not a string, blank, NUL bytes). Read, Write, Edit,
    Glob, Grep, the permission rules, the fork gate and the memory hooks all use this.
    """
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        return None
    try:
        expanded = os.path.expanduser(raw)
        joined = os.path.join(os.fspath(workdir), expanded)
    except (TypeError, ValueError):
        return None
    return real_path(joined)


def is_inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """True when the real path of `path` is `folder` or lies below it (both resolved). Never raises."""
    target, root = real_path(path), real_path(folder)
    if target is None or root is None:
        return False
    return target == root or root in target.parents


def is_strictly_inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """`is_inside`, but not the folder itself (a file in it, at any depth)."""
    target, root = real_path(path), real_path(folder)
    return target is not None and root is not None and root in target.parents
