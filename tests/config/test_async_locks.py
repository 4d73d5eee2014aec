"""`async_file_lock`: the cross-process memory lock, awaited without blocking the loop (X2)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from filelock import FileLock

from wave_tui.config.async_locks import async_file_lock
from wave_tui.config.fileio import file_lock, lock_path_for


@pytest.mark.req("X2")
async def test_x2_waiting_for_the_lock_lets_other_coroutines_run(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    lock_path_for(target).parent.mkdir(parents=True, exist_ok=True)
    other = FileLock(str(lock_path_for(target)), thread_local=False)
    other.acquire()
    ticks = 0
    acquired = asyncio.Event()

    async def holder() -> None:
        async with async_file_lock(target):
            acquired.set()

    task = asyncio.create_task(holder())
    while ticks < 5:  # the loop keeps running while the lock is held elsewhere
        await asyncio.sleep(0.01)
        ticks += 1
    assert not acquired.is_set()
    other.release()
    await task
    assert acquired.is_set()


@pytest.mark.req("X2")
async def test_x2_same_lock_file_as_the_blocking_one_and_a_bounded_wait(tmp_path: Path) -> None:
    target = tmp_path / "topic.md"
    with file_lock(target), pytest.raises(TimeoutError):
        async with async_file_lock(target, patience_s=0.1):
            pass
    async with async_file_lock(target):
        pass  # free again
