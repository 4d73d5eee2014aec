"""Push-style live reload: watch() yields new settings after a file changes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from wave_tui.config.live import watch_targets
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import EffectiveSettings, SettingsStore

from .conftest import bump_mtime


async def _stop(pending: asyncio.Future[EffectiveSettings], stream: AsyncGenerator[Any]) -> None:
    pending.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await pending
    await stream.aclose()


async def _next_after_writes(store: SettingsStore, path: Path, language: str) -> EffectiveSettings:
    """Start watching, then write until the watcher reports (its start-up time is unknown)."""
    stream = store.watch(debounce_ms=50)
    pending = asyncio.ensure_future(anext(stream))
    # Let the watch start first, so the change reaches it as an event, not at start-up.
    await asyncio.sleep(0.3)
    try:
        for _ in range(40):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"language": language}), encoding="utf-8")
            bump_mtime(path)
            done, _ = await asyncio.wait({pending}, timeout=0.25)
            if done:
                return pending.result()
        raise AssertionError("watch() did not report the change")
    finally:
        await _stop(pending, stream)


async def test_watch_yields_settings_after_a_file_change(paths: WavePaths) -> None:
    paths.project_settings.parent.mkdir(parents=True)
    paths.user_settings.parent.mkdir(parents=True)
    store = SettingsStore(paths, environ={})

    settings = await asyncio.wait_for(
        _next_after_writes(store, paths.project_settings, "zh"), timeout=20
    )

    assert settings.language == "zh"
    assert store.current() is settings


async def test_watch_handles_folders_that_do_not_exist_yet(paths: WavePaths) -> None:
    store = SettingsStore(paths, environ={})
    assert watch_targets(store.files) == {paths.home, paths.project_root}

    settings = await asyncio.wait_for(
        _next_after_writes(store, paths.user_settings, "fr"), timeout=20
    )

    assert settings.language == "fr"


async def test_watch_creates_no_folders(paths: WavePaths) -> None:
    store = SettingsStore(paths, environ={})
    stream = store.watch(debounce_ms=50)
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.3)
    await _stop(pending, stream)

    assert not paths.wave_home.exists()
    assert not (paths.project_root / ".wave").exists()


async def test_the_polling_watch_still_reports_a_change(paths: WavePaths) -> None:
    """Where inotify is not at hand (or `force_polling`), watchfiles watches the folders."""
    paths.project_settings.parent.mkdir(parents=True)
    store = SettingsStore(paths, environ={})
    stream = store.watch(debounce_ms=50, force_polling=True)
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.3)
    try:
        for _ in range(40):
            paths.project_settings.write_text(json.dumps({"language": "de"}), encoding="utf-8")
            bump_mtime(paths.project_settings)
            done, _ = await asyncio.wait({pending}, timeout=0.25)
            if done:
                break
        assert pending.result().language == "de"
    finally:
        await _stop(pending, stream)


async def test_an_idle_watch_runs_no_thread(paths: WavePaths) -> None:
    """The inotify watch waits in the event loop: nothing wakes up while nothing changes (the
    polling watch's thread woke every 50 ms, the app's main idle cost)."""
    store = SettingsStore(paths, environ={})
    # Which threads, not how many: one another test left may end meanwhile.
    before = set(threading.enumerate())
    stream = store.watch(debounce_ms=50)
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.3)
    try:
        assert set(threading.enumerate()) - before == set()
        assert not pending.done()
    finally:
        await _stop(pending, stream)
