"""Safe file replacement: atomic writes (temp file + os.replace) and cross-process locks (X2).

Every write that replaces a file wave-tui owns goes through here.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from wave_tui.config.paths import OwnedPathError

LOCK_TIMEOUT_S = 30.0
# A temp file of another format (older versions) is litter once it is this old.
STALE_TEMP_AGE_S = 60.0


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
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """`atomic_write_text` for bytes (a file checkpoint, a file put back by a rewind)."""
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    sweep_stale_temps(path)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: it exists, owned by someone else
        return True
    return True


def sweep_stale_temps(path: Path) -> list[Path]:  # req: X12
    """Remove temp files a crashed writer of `path` left (`.NAME.<pid>-<random>.tmp`).

    A temp is stale when its writer's process is gone; one in another format when it is older
    than STALE_TEMP_AGE_S. Live writers' temps are never touched. Returns what was removed."""
    prefix = f".{path.name}."
    removed: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        middle = name[len(prefix) : -len(".tmp")]
        pid_text, dash, _ = middle.partition("-")
        try:
            if dash and pid_text.isdigit():
                pid = int(pid_text)
                stale = pid != os.getpid() and not _pid_alive(pid)
            else:
                stale = now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_AGE_S
            if stale and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def lock_path_for(path: Path) -> Path:
    """Where the lock for `path` lives: `~/.wave/locks/`, keyed by the file's real path, so no
    `.AGENTS.md.lock` is ever left in the user's repository or memory folder."""
    from wave_tui.config.paths import home_dir

    key = hashlib.sha256(os.path.realpath(path).encode("utf-8", "surrogatepass")).hexdigest()
    return home_dir() / ".wave" / "locks" / f"{key[:32]}.lock"


# req: X10
@contextlib.contextmanager
def file_lock(path: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the cross-process lock for `path` (keyed by its real path under `~/.wave/locks/`,
    so two names of one file share one lock)."""
    from filelock import FileLock  # imported on first use: not needed at start-up

    lock = lock_path_for(path)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise OwnedPathError(
            f"{lock.parent} must be a folder (wave keeps its file locks there); move the file away"
        ) from exc
    with FileLock(str(lock), timeout=timeout):
        yield


# req: X10
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
        except IsADirectoryError as exc:
            raise OwnedPathError(f"{path} is a folder, not a file; rename or remove it") from exc
        new = update(current)
        if new is not None and new != current:
            atomic_write_text(path, new)
            return new
        return None
