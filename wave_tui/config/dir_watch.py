"""Change invalidation without polling: memory inputs (a stat of every input before each
request costs too much at 10k rule files) and the settings files (the app's live reload waits
on the instance's descriptor in the event loop, nothing wakes up while nothing changes).

`DirWatch` is a Linux inotify instance over a set of directories, read without blocking at the
moment a request is built. The kernel queues an event inside the write/rename/unlink/utime
syscall itself, so every change that finished before the request is already in the queue when it
is drained: there is no window in which an edit is missed (unlike a watcher thread with a debounce,
which would need its own barrier). Draining an empty queue is one failed `read`: per request the
cost is O(changed files), not O(watched files).

A drain is one `read` of at most `DRAIN_BYTES`, never a loop until the queue is empty: another
process (a build, a file-syncing tool) can make events faster than they are read, and a request
must not wait for it to stop. More than fits is treated like the kernel's own queue overflow.

Where inotify is unavailable (not Linux, no free watches, a queue overflow) `drain()` returns None
and callers fall back to their stat walk, with identical results. A file changed through a path
the kernel does not see (a network file system written by another host) is also only found by
that walk; memory inputs live on local disks.
"""

from __future__ import annotations

import ctypes
import functools
import os
import struct
import sys
import threading
import weakref
from pathlib import Path

_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
# Everything that can change what a file holds or which files a directory holds.
_MASK = (
    0x00000002  # IN_MODIFY
    | 0x00000004  # IN_ATTRIB (utime, chmod: an mtime moved)
    | 0x00000008  # IN_CLOSE_WRITE
    | 0x00000040  # IN_MOVED_FROM
    | 0x00000080  # IN_MOVED_TO
    | 0x00000100  # IN_CREATE
    | 0x00000200  # IN_DELETE
    | 0x00000400  # IN_DELETE_SELF
    | 0x00000800  # IN_MOVE_SELF
)
_IN_Q_OVERFLOW = 0x00004000
_IN_IGNORED = 0x00008000
# The watched folder itself went away or moved: its watch no longer means its path.
_SELF_GONE = 0x00000400 | 0x00000800 | _IN_IGNORED
_EVENT = struct.Struct("iIII")
# What one drain reads at most (~2,000 events at usual name lengths): a storm of events costs a
# request one bounded read and the caller's full look, whatever the other process does.
DRAIN_BYTES = 64 * 1024
# The largest event the kernel writes: its header and a NAME_MAX name with the NUL.
_MAX_EVENT_BYTES = _EVENT.size + 255 + 1


@functools.cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        # The interpreter's own symbols include libc's: `ctypes.util.find_library` would run
        # `ldconfig -p` in a subprocess at every start.
        lib = ctypes.CDLL(None, use_errno=True)
        lib.inotify_init1.argtypes = [ctypes.c_int]
        lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        lib.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return lib


class DirWatch:
    """Directories watched by one inotify instance; `drain()` says what changed since last time."""

    def __init__(self) -> None:
        self._lib = _libc()
        self._fd: int | None = None
        if self._lib is not None:
            fd = self._lib.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
            self._fd = fd if fd >= 0 else None
        if self._fd is not None:
            self._finalizer = weakref.finalize(self, os.close, self._fd)
        # By the name as given (a str: a caller with 10k file paths makes no Path for each).
        self._dir_of: dict[int, tuple[str, Path]] = {}
        self._wd_of: dict[str, int] = {}
        self._inode_of: dict[int, tuple[int, int]] = {}  # what each watch was added on
        self._lost = self._fd is None  # a watch could not be added: changes may go unseen

    @property
    def available(self) -> bool:
        return self._fd is not None and not self._lost

    def fileno(self) -> int | None:
        """The instance's descriptor (readable when an event is queued); None without one."""
        return self._fd

    def watch(self, directory: str | os.PathLike[str]) -> bool:
        """Watch `directory` (not its subfolders); True when it was not watched before."""
        name = os.fspath(directory)
        if self._fd is None or self._lib is None or name in self._wd_of:
            return False
        wd = self._lib.inotify_add_watch(self._fd, os.fsencode(name), _MASK)
        if wd < 0:
            if ctypes.get_errno() != 2:  # ENOENT: gone already; its parent's event says so
                self._lost = True
            return True
        self._dir_of[wd] = (name, Path(name))
        self._wd_of[name] = wd
        self._inode_of[wd] = _inode(name)
        return True

    # req: HR13
    def drain(self) -> set[Path] | None:
        """Paths changed since the last drain (a directory's own path for its own events);
        None when that cannot be known, and the caller must look at everything.

        One `read`: a queue that another process keeps filling does not keep it going."""
        if self._fd is None:
            return None
        try:
            data = os.read(self._fd, DRAIN_BYTES)
        except BlockingIOError:
            data = b""
        except OSError:
            return None
        # The kernel fills a read with every queued event that fits: room left for the largest
        # event means the queue was empty; otherwise more waits, which is an overflow to us (the
        # rest stays queued and is read later, its changes already covered by the full look).
        if len(data) > DRAIN_BYTES - _MAX_EVENT_BYTES:
            # Parsing ~2,000 events only to look at everything anyway is what a storm would cost
            # each request: the one thing the events would tell, a watched folder gone or moved,
            # is asked of the folders themselves (a stat each, a few dozen).
            self._forget_moved()
            self._lost = False
            return None
        names, overflow = self._parse(data)
        if overflow or self._lost:
            self._lost = False  # the caller's full look re-adds what is missing
            return None
        changed: set[Path] = set()
        for wd, raw in names:
            watched = self._dir_of.get(wd)
            if watched is not None:
                changed.add(watched[1] / os.fsdecode(raw) if raw else watched[1])
        return changed

    def _parse(self, data: bytes) -> tuple[set[tuple[int, bytes]], bool]:
        """The (watch, name) pairs the events name, coalesced before any Path is made (a storm
        names the same few files over and over); True when the caller must look again."""
        names: set[tuple[int, bytes]] = set()
        overflow = False
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
            raw = data[offset + _EVENT.size : offset + _EVENT.size + size].rstrip(b"\0")
            offset += _EVENT.size + size
            if mask & _IN_Q_OVERFLOW:
                overflow = True
                continue
            watched = self._dir_of.get(wd)
            if watched is None:
                continue
            if mask & _SELF_GONE:
                self._forget(wd, watched[0])
                overflow = True  # what was below it is unknown now: the caller looks again
            else:
                names.add((wd, raw))
        return names, overflow

    def _forget_moved(self) -> None:
        """Drop the watches whose path no longer names the folder they were added on."""
        for name, wd in list(self._wd_of.items()):
            if _inode(name) != self._inode_of.get(wd):
                self._forget(wd, name)

    def _forget(self, wd: int, name: str) -> None:
        self._dir_of.pop(wd, None)
        self._wd_of.pop(name, None)
        self._inode_of.pop(wd, None)
        if self._fd is not None and self._lib is not None:
            self._lib.inotify_rm_watch(self._fd, wd)  # a moved folder keeps its watch otherwise

    def close(self) -> None:
        if self._fd is not None:
            self._finalizer.detach()
            # Closing an inotify instance waits for a kernel grace period (~20 ms): off the
            # caller's thread (the event loop), and two watches close side by side.
            threading.Thread(target=os.close, args=(self._fd,), daemon=True).start()
            self._fd = None
        self._dir_of.clear()
        self._wd_of.clear()
        self._inode_of.clear()


def _inode(name: str) -> tuple[int, int]:
    """The folder `name` is now (as the watch follows links), or (-1, -1) when there is none."""
    try:
        st = os.stat(name)
    except OSError:
        return (-1, -1)
    return (st.st_dev, st.st_ino)


def nearest_existing(path: Path) -> Path:
    """The folder itself, or its closest ancestor that exists (whose events show its creation)."""
    current = path
    while not current.is_dir() and current.parent != current:
        current = current.parent
    return current
