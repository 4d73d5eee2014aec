"""Push-style live reload: watch the settings files' folders and yield the new settings.

Folders are never created just to be watched: when a settings file's folder does not exist yet,
its nearest existing ancestor is watched (non-recursively) until the folder appears.

On Linux the folders are an inotify watch whose descriptor the event loop waits on: while
nothing changes, nothing runs (the app idles at a bare Textual app's cost). Elsewhere, or with
`force_polling`, watchfiles watches them (its thread wakes every 50 ms).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from wave_tui.config.dir_watch import DirWatch

if TYPE_CHECKING:
    from watchfiles import Change

Current = TypeVar("Current", covariant=True)


class WatchedFiles(Protocol[Current]):
    """What the watch needs of a settings store (`SettingsStore` is one), so that this module
    does not import the settings it reloads."""

    @property
    def files(self) -> list[Path]: ...
    def refresh(self) -> bool: ...
    def current(self) -> Current: ...


RETRY_DELAY_S = 0.5


def nearest_existing_dir(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.is_dir():
            return candidate
    return Path(path.anchor or "/")


def watch_targets(files: list[Path]) -> frozenset[Path]:
    """The folders to watch so that a change to any of `files` is seen."""
    return frozenset(nearest_existing_dir(f.parent) for f in files)


def relevant_paths(files: list[Path]) -> frozenset[str]:
    """The files themselves plus their ancestors (a missing folder appearing matters too)."""
    out: set[str] = set()
    for f in files:
        out.add(str(f))
        out.update(str(p) for p in f.parents)
    return frozenset(out)


async def watch_settings(
    store: WatchedFiles[Current],
    *,
    debounce_ms: int = 1_600,
    stop_event: Any = None,
    force_polling: bool | None = None,
) -> AsyncIterator[Current]:
    """Yield `store.current()` after each change to one of its settings files."""
    if not force_polling:
        watch = DirWatch()
        if watch.available:
            try:
                async for current in _inotify_watch(store, watch, debounce_ms, stop_event):
                    yield current
                return
            finally:
                watch.close()
        watch.close()
    async for current in _watchfiles_watch(store, debounce_ms, stop_event, force_polling):
        yield current


async def _inotify_watch(
    store: WatchedFiles[Current], watch: DirWatch, debounce_ms: int, stop_event: Any
) -> AsyncIterator[Current]:
    fd = watch.fileno()
    assert fd is not None
    files = store.files
    wanted = {Path(p) for p in relevant_paths(files)}
    loop = asyncio.get_running_loop()
    woke = asyncio.Event()

    # req: HR13
    def wake() -> None:
        # The descriptor stays readable until drained: left registered while the batch settles,
        # this would run on every turn of the loop (a busy loop on another process's events).
        loop.remove_reader(fd)
        woke.set()

    look = True
    try:
        while stop_event is None or not stop_event.is_set():
            if look:
                for target in watch_targets(files):
                    watch.watch(target)  # a folder that appeared since: watched from now on
                # A change that landed while the watch was being (re)built is seen here.
                if store.refresh():
                    yield store.current()
            loop.add_reader(fd, wake)
            await woke.wait()
            # The batch of writes an editor makes (write, rename, chmod) settles first.
            await asyncio.sleep(debounce_ms / 1000)
            woke.clear()
            changed = watch.drain()  # emptied, or the descriptor stays readable
            look = changed is None or bool(changed & wanted)  # None: unknown, look
    finally:
        loop.remove_reader(fd)


async def _watchfiles_watch(
    store: WatchedFiles[Current], debounce_ms: int, stop_event: Any, force_polling: bool | None
) -> AsyncIterator[Current]:
    from watchfiles import awatch  # only where inotify is not at hand

    files = store.files
    wanted = relevant_paths(files)

    def only_settings(_change: Change, path: str) -> bool:
        return path in wanted

    while stop_event is None or not stop_event.is_set():
        targets = watch_targets(files)
        # A change that landed while the watch was being (re)built would otherwise be missed.
        if store.refresh():
            yield store.current()
        try:
            async with contextlib.aclosing(
                awatch(
                    *sorted(targets),
                    watch_filter=only_settings,
                    debounce=debounce_ms,
                    stop_event=stop_event,
                    recursive=False,
                    force_polling=force_polling,
                )
            ) as changes:
                async for _batch in changes:
                    if store.refresh():
                        yield store.current()
                    if watch_targets(files) != targets:
                        break
                else:
                    return
        except (OSError, RuntimeError):
            # A watched folder vanished or the backend failed: rebuild the watch shortly.
            await asyncio.sleep(RETRY_DELAY_S)
