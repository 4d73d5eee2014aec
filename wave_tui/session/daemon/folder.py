"""The daemon's folder (`~/.wave/daemon/`) as a private place before anything is put in it.

The socket, lock, log and session registry live there: a folder someone else made for us — a
symlink to a folder of theirs, a folder they own, one open to everyone — would let them listen
in place of the daemon or read what it keeps. A link or a foreign owner is refused (never
followed); loose permissions on our own folder are tightened to 0700.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

PRIVATE_MODE = 0o700


class UnsafeDaemonFolder(Exception):
    """The daemon folder cannot be trusted: one line saying why."""


# req: HR6
def ensure_private_folder(folder: Path) -> None:
    """`folder` exists as a real folder of ours with mode 0700; UnsafeDaemonFolder otherwise."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, PRIVATE_MODE)
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeDaemonFolder(f"{folder} is a symlink: refusing to use it (remove it)")
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeDaemonFolder(f"{folder} is not a folder: refusing to use it (remove it)")
    if info.st_uid != os.getuid():
        raise UnsafeDaemonFolder(f"{folder} belongs to another user: refusing to use it")
    if stat.S_IMODE(info.st_mode) != PRIVATE_MODE:
        # Opened without following: a link swapped in since the lstat is not what is changed.
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.fchmod(fd, PRIVATE_MODE)
        finally:
            os.close(fd)
