"""Push-style live reload: watch the settings files' folders and yield the new settings.

Folders are never created just to be watched: when a settings file's folder does not exist yet,
its nearest existing ancestor is watched (non-recursively) until the folder appears.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

from watchfiles import Change, awatch

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
