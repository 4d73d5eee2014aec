"""Putting a checkpointed file back without following links.

A rewind writes where the agent once wrote, and much may have changed there since: the file may
now be a symlink (to a file outside the project), a folder on its path may be one. A restore
replaces the link itself by a regular file, never its target; a removal unlinks the link, never
its target; a folder on the path that became a link fails the file (`LinkOnPathError`) rather
than reach through it. Blocking: call from a thread.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from wave_tui.config.fileio import NEW_FILE_MODE
from wave_tui.features.rewind.store import content_sha, read_state
from wave_tui.files.no_follow import open_folder_no_follow

# A file that is a link has no content of its own: it matches no checkpoint's hash.
LINK_STATE = "symlink"


def current_sha(path: Path) -> str | None:
    """The hash of the file's own bytes, None when there is none, LINK_STATE for a link."""
    if path.is_symlink():
        return LINK_STATE
    data = read_state(path)
    return None if data is None else content_sha(data)


# req: HR8
def replace_no_follow(path: Path, data: bytes) -> None:
    """`path` (absolute) becomes a regular file holding `data`, atomically; a link there is
    replaced, never written through. Missing folders are made."""
    folder = open_folder_no_follow(path.parent, create=True)
    try:
        try:
            current = os.stat(path.name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            mode = NEW_FILE_MODE
        else:
            is_file = stat.S_ISREG(current.st_mode)
            mode = stat.S_IMODE(current.st_mode) if is_file else NEW_FILE_MODE
        tmp = f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o600, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fchmod(fh.fileno(), mode)
                os.fsync(fh.fileno())
            # rename(2) replaces the name itself: a link there goes, its target stays as it is.
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=folder)
            raise
    finally:
        os.close(folder)


# req: HR8
def remove_no_follow(path: Path) -> None:
    """Remove the file (or the link) named `path`; nothing when it is gone already."""
    try:
        folder = open_folder_no_follow(path.parent, create=False)
    except FileNotFoundError:
        return
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path.name, dir_fd=folder)
    finally:
        os.close(folder)
