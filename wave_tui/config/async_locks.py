"""Cross-process file locks for coroutines: never block the event loop (a lock held
by another process must not freeze the app or a running turn).

The same lock files as `config.fileio.file_lock` (so a `wave memory add` in another process and
a Write in the agent exclude each other), but acquired with a non-blocking attempt retried on
`asyncio.sleep`: while another process holds the lock, the UI keeps answering keys.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.config.fileio import LOCK_TIMEOUT_S, lock_path_for

if TYPE_CHECKING:
    from filelock import FileLock

RETRY_S = 0.05


def _try_acquire(lock: FileLock) -> bool:
    from filelock import Timeout

    try:
        lock.acquire(timeout=0)
    except Timeout:
        return False
    return True


@contextlib.asynccontextmanager
async def async_file_lock(path: Path, patience_s: float = LOCK_TIMEOUT_S) -> AsyncIterator[None]:
    """Hold the lock for `path`; raises TimeoutError after `patience_s` seconds of waiting."""
    target = lock_path_for(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # thread_local=False: acquired and released on the loop's thread, whatever runs between.
    from filelock import FileLock  # on first use: a run that takes no lock does not load it

    lock = FileLock(str(target), thread_local=False)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience_s
    while not _try_acquire(lock):
        if loop.time() >= deadline:
            raise TimeoutError(f"{path} is locked by another process")
        await asyncio.sleep(RETRY_S)
    try:
        yield
    finally:
        lock.release()
