"""save_user_settings: what the settings screen writes to ~/.wave/settings.json (S1, S6)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from wave_tui.config import fileio
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsFileError, SettingsStore, save_user_settings

from .conftest import WriteSettings

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("S6")


def test_save_creates_the_file_and_folder(paths: WavePaths) -> None:
    save_user_settings(paths, auto_memory_enabled=False, auto_memory_frequency=3)

    assert paths.user_settings.read_text() == (
        '{\n  "autoMemoryEnabled": false,\n  "autoMemoryFrequency": 3\n}\n'
    )


def test_save_updates_only_given_keys_and_keeps_order(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(
        paths.user_settings,
        {"hooks": {"Stop": []}, "language": "en", "autoMemoryEnabled": True, "zeta": 1},
    )

    save_user_settings(paths, language="zh", auto_memory_enabled=False, model="x")

    data = json.loads(paths.user_settings.read_text())
    assert list(data) == ["hooks", "language", "autoMemoryEnabled", "zeta", "model"]
    assert data == {
        "hooks": {"Stop": []},
        "language": "zh",
        "autoMemoryEnabled": False,
        "zeta": 1,
        "model": "x",
    }


def test_save_none_removes_a_key(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(paths.user_settings, {"language": "en", "model": "m"})

    save_user_settings(paths, language=None)

    assert json.loads(paths.user_settings.read_text()) == {"model": "m"}


@pytest.mark.parametrize("bad", [0, 101, "3", True, 1.5])
def test_save_refuses_an_invalid_frequency(paths: WavePaths, bad: object) -> None:
    with pytest.raises(ValueError, match="autoMemoryFrequency: must be an integer from 1 to 100"):
        save_user_settings(paths, auto_memory_frequency=bad)

    assert not paths.user_settings.exists()


def test_save_refuses_unknown_names(paths: WavePaths) -> None:
    with pytest.raises(ValueError, match="unknown setting"):
        save_user_settings(paths, auto_memory=True)


def test_save_does_not_overwrite_a_corrupt_file(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, '{"language": "en",')

    with pytest.raises(SettingsFileError, match="not valid JSON"):
        save_user_settings(paths, auto_memory_enabled=False)

    assert paths.user_settings.read_text() == '{"language": "en",'


def test_save_is_atomic_and_locked(paths: WavePaths, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real_write, real_lock = fileio.atomic_write_text, fileio.file_lock

    def spy_write(path: Path, text: str, **kw: object) -> None:
        calls.append("write")
        real_write(path, text)

    def spy_lock(path: Path, timeout: float = 30.0):  # type: ignore[no-untyped-def]
        calls.append("lock")
        return real_lock(path, timeout)

    monkeypatch.setattr(fileio, "atomic_write_text", spy_write)
    monkeypatch.setattr(fileio, "file_lock", spy_lock)

    save_user_settings(paths, language="zh")

    assert calls == ["lock", "write"]
    leftovers = [p.name for p in paths.wave_home.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


@pytest.mark.req("S1")
def test_s1_saved_setting_is_in_force_at_the_next_current(paths: WavePaths) -> None:
    store = SettingsStore(paths, environ={"WAVE_DISABLE_AUTO_MEMORY": "0"})
    assert store.current().auto_memory_enabled is True

    save_user_settings(paths, auto_memory_enabled=False, auto_memory_frequency=2)

    settings = store.current()
    assert (settings.auto_memory_enabled, settings.auto_memory_frequency) == (False, 2)


def test_save_keeps_file_permissions(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(paths.user_settings, {})
    os.chmod(paths.user_settings, 0o600)

    save_user_settings(paths, language="zh")

    assert paths.user_settings.stat().st_mode & 0o777 == 0o600


@pytest.mark.req("S1")
def test_store_save_user_reloads_and_notifies_at_once(paths: WavePaths) -> None:
    """S1: what the settings screen saves is in force at once, one change signal."""
    store = SettingsStore(paths, environ={})
    heard: list[bool] = []
    store.subscribe(lambda s: heard.append(s.auto_memory_enabled))
    version = store.version

    settings = store.save_user(auto_memory_enabled=False)

    assert settings.auto_memory_enabled is False
    assert (heard, store.version) == ([False], version + 1)
    assert json.loads(paths.user_settings.read_text()) == {"autoMemoryEnabled": False}
