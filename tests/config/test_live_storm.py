"""Settings live reload under a storm of file events: one look per settled batch (HR13).

The app waits on the watch's descriptor in its event loop. That descriptor stays readable while
another process keeps the queue full; the loop must not be woken for it on every turn while a
batch settles, only once per look.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.file_storm import storms
from wave_tui.config.live import watch_settings

# Not a timing assert: a watch that never looks fails here instead of hanging the suite.
HANG_GUARD_S = 60.0
LOOKS = 4


class _Store:
    """A settings store of one file whose every refresh is counted (a look at the disk)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.looks = 0
        self.enough = asyncio.Event()

    @property
    def files(self) -> list[Path]:
        return [self.path]

    def refresh(self) -> bool:
        self.looks += 1
        if self.looks >= LOOKS:
            self.enough.set()
        return False

    def current(self) -> int:
        return self.looks


@pytest.mark.req("HR13")
async def test_hr13_a_storm_wakes_the_settings_watch_once_per_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _Store(tmp_path / "settings.json")  # its folder is the stormy one
    loop = asyncio.get_running_loop()
    wakeups = 0
    add_reader = loop.add_reader

    def counting_add_reader(fd: int, callback: Callable[..., Any], *args: Any) -> None:
        def counted(*a: Any) -> None:
            nonlocal wakeups
            wakeups += 1
            callback(*a)

        add_reader(fd, counted, *args)

    monkeypatch.setattr(loop, "add_reader", counting_add_reader)
    stream = watch_settings(store, debounce_ms=100)
    task = asyncio.ensure_future(anext(stream))  # yields nothing: refresh says "no change"
    with storms(tmp_path):
        await asyncio.wait_for(store.enough.wait(), HANG_GUARD_S)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await stream.aclose()
    # Every look after the first was woken once; a wake-up per turn of the loop is thousands.
    assert store.looks >= LOOKS
    assert wakeups <= store.looks
