"""Safe file replacement: atomic writes (temp file + os.replace) and cross-process locks (X2).

Every write that replaces a file wave-tui owns goes through here.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from filelock import FileLock

LOCK_TIMEOUT_S = 30.0


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


# What a plain open() would give a new file: mkstemp's 0600 must not leak into AGENTS.md & co.
NEW_FILE_MODE = 0o666 & ~_umask()


def atomic_write_text(path: Path, text: str, *, encoding: str = "utf-8") -> None:
    """Replace `path` with `text` atomically, keeping the old file's permission bits.

    A symlinked path (`AGENTS.md -> CLAUDE.md`, a dotfiles-managed settings.json) is written
    through to its target: the link itself stays a link."""
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def lock_path_for(path: Path) -> Path:
    """Where the lock for `path` lives: `~/.wave/locks/`, keyed by the file's real path, so no
    `.AGENTS.md.lock` is ever left in the user's repository or memory folder."""
    from wave_tui.config.paths import home_dir

    key = hashlib.sha256(os.path.realpath(path).encode("utf-8", "surrogatepass")).hexdigest()
    return home_dir() / ".wave" / "locks" / f"{key[:32]}.lock"


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the cross-process lock for `path` (keyed by its real path under `~/.wave/locks/`,
    so two names of one file share one lock)."""
    lock = lock_path_for(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock), timeout=timeout):
        yield


def locked_update(path: Path, update: Callable[[str | None], str | None]) -> str | None:
    """Read-modify-write `path` under its lock. `update` gets the current text (None if missing)
    and returns the new text, or None to leave the file as it is. Returns what was written."""
    with file_lock(path):
        try:
            # newline="" keeps CRLF files byte-exact: nothing but the requested change is written.
            with open(path, encoding="utf-8", newline="") as fh:
                current: str | None = fh.read()
        except FileNotFoundError:
            current = None
        new = update(current)
        if new is not None and new != current:
            atomic_write_text(path, new)
            return new
        return None
