"""Writing a file at a checked real path without following a link that appeared since the check.

The permission layer decides on a file's real path; a folder on that path can be swapped for a
symlink while the dialog is open (or between two system calls in `-p`). These helpers walk the
checked path from `/` one component at a time with `O_NOFOLLOW`, so the write lands in the very
folder that was checked or fails: a link anywhere on the path is an error, never a detour.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from wave_tui.config.fileio import NEW_FILE_MODE

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class LinkOnPathError(OSError):
    """A component of a checked path is now a symlink (or no longer a folder)."""

    def __init__(self, path: Path) -> None:
        super().__init__(errno.ELOOP, "a folder on the path was replaced by a link", str(path))


def open_folder_no_follow(folder: Path, *, create: bool) -> int:
    """A directory fd for the real, absolute `folder`, reached without following any link;
    missing folders are made when `create`. The caller closes the fd."""
    if not folder.is_absolute():
        raise ValueError(f"{folder} is not absolute")
    fd = os.open("/", _DIR_FLAGS)
    try:
        for part in folder.parts[1:]:
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
                child = _open_child(part, fd, folder)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise LinkOnPathError(folder) from exc
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_child(part: str, fd: int, folder: Path) -> int:
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise LinkOnPathError(folder) from exc
        raise


def write_text_no_follow(path: Path, text: str, *, encoding: str = "utf-8") -> int:
    """Replace the file at the real path `path` atomically (temp file + rename inside the
    checked folder), keeping its permission bits; returns the new mtime_ns. Blocking."""
    folder = open_folder_no_follow(path.parent, create=True)
    try:
        name = path.name
        try:
            current = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            mode = NEW_FILE_MODE
        else:
            if stat.S_ISLNK(current.st_mode):
                raise LinkOnPathError(path)  # the checked real path named no link
            mode = stat.S_IMODE(current.st_mode)
        tmp = f".{name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o600, dir_fd=folder)
        try:
            with os.fdopen(fd, "w", encoding=encoding, newline="") as fh:
                fh.write(text)
                fh.flush()
                os.fchmod(fh.fileno(), mode)
                os.fsync(fh.fileno())
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=folder)
            raise
        return os.stat(name, dir_fd=folder, follow_symlinks=False).st_mtime_ns
    finally:
        os.close(folder)
