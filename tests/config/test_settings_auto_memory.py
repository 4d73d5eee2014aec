"""S6: auto memory comes from ~/.wave/settings.json, then WAVE_* env, then defaults."""

from __future__ import annotations

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore

from .conftest import WriteSettings


@pytest.mark.req("S6")
def test_s6_user_file_disabling_beats_env_saying_enabled(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"autoMemoryEnabled": False})

    settings = SettingsStore(paths, environ={"WAVE_DISABLE_AUTO_MEMORY": "0"}).current()

    assert settings.auto_memory_enabled is False


@pytest.mark.req("S6")
def test_s6_user_file_enabling_beats_env_disabling(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"autoMemoryEnabled": True, "autoMemoryFrequency": 4})

    settings = SettingsStore(
        paths, environ={"WAVE_DISABLE_AUTO_MEMORY": "1", "WAVE_AUTO_MEMORY_FREQUENCY": "9"}
    ).current()

    assert (settings.auto_memory_enabled, settings.auto_memory_frequency) == (True, 4)


@pytest.mark.req("S6")
@pytest.mark.parametrize("word", ["1", "true", "yes", "TRUE"])
def test_s6_env_disables_when_user_file_is_silent(paths: WavePaths, word: str) -> None:
    settings = SettingsStore(paths, environ={"WAVE_DISABLE_AUTO_MEMORY": word}).current()

    assert settings.auto_memory_enabled is False


@pytest.mark.req("S6")
@pytest.mark.parametrize("word", ["0", "false", "no"])
def test_s6_env_false_words_keep_it_enabled(paths: WavePaths, word: str) -> None:
    settings = SettingsStore(paths, environ={"WAVE_DISABLE_AUTO_MEMORY": word}).current()

    assert settings.auto_memory_enabled is True
    assert settings.problems == ()


@pytest.mark.req("S6")
def test_s6_env_frequency_applies_when_user_file_is_silent(paths: WavePaths) -> None:
    settings = SettingsStore(paths, environ={"WAVE_AUTO_MEMORY_FREQUENCY": "5"}).current()

    assert settings.auto_memory_frequency == 5


@pytest.mark.req("S6")
def test_s6_project_and_local_files_cannot_set_auto_memory(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {"autoMemoryEnabled": False, "autoMemoryFrequency": 7})
    write_settings(
        paths.local_settings,
        {"autoMemoryEnabled": False, "env": {"WAVE_DISABLE_AUTO_MEMORY": "1"}},
    )

    settings = SettingsStore(paths, environ={}).current()

    assert (settings.auto_memory_enabled, settings.auto_memory_frequency) == (True, 1)
    assert any(
        p.startswith(".wave/settings.json: autoMemoryEnabled: ignored") for p in settings.problems
    )


@pytest.mark.req("S6")
def test_s6_user_file_env_block_counts_as_env(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"env": {"WAVE_AUTO_MEMORY_FREQUENCY": "3"}})

    assert SettingsStore(paths, environ={}).current().auto_memory_frequency == 3


@pytest.mark.req("S4")
@pytest.mark.parametrize("bad", [0, 101, "3", 2.5, True])
def test_s4_invalid_file_frequency_is_reported_and_falls_back_to_env(
    paths: WavePaths, write_settings: WriteSettings, bad: object
) -> None:
    write_settings(paths.user_settings, {"autoMemoryFrequency": bad})

    settings = SettingsStore(paths, environ={"WAVE_AUTO_MEMORY_FREQUENCY": "6"}).current()

    assert settings.auto_memory_frequency == 6
    assert len(settings.problems) == 1
    assert settings.problems[0].startswith(
        "~/.wave/settings.json: autoMemoryFrequency: must be an integer from 1 to 100 (got "
    )


@pytest.mark.req("S4")
def test_s4_frequency_zero_message_is_exact(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"autoMemoryFrequency": 0})

    settings = SettingsStore(paths, environ={}).current()

    assert settings.problems == (
        "~/.wave/settings.json: autoMemoryFrequency: must be an integer from 1 to 100 (got 0)",
    )


@pytest.mark.req("S4")
@pytest.mark.parametrize("bad", ["0", "101", "often", "1.5"])
def test_s4_invalid_env_frequency_is_reported_and_falls_back_to_default(
    paths: WavePaths, bad: str
) -> None:
    settings = SettingsStore(paths, environ={"WAVE_AUTO_MEMORY_FREQUENCY": bad}).current()

    assert settings.auto_memory_frequency == 1
    assert settings.problems == (
        f'WAVE_AUTO_MEMORY_FREQUENCY: must be an integer from 1 to 100 (got "{bad}")',
    )


@pytest.mark.req("S6")
def test_s6_unrecognised_disable_word_is_reported_and_ignored(paths: WavePaths) -> None:
    settings = SettingsStore(paths, environ={"WAVE_DISABLE_AUTO_MEMORY": "maybe"}).current()

    assert settings.auto_memory_enabled is True
    assert len(settings.problems) == 1
    assert settings.problems[0].startswith("WAVE_DISABLE_AUTO_MEMORY:")
