"""Live reload through current(), and how bad files are reported (contract: Configuration)."""

from __future__ import annotations

import json

from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import EffectiveSettings, SettingsStore

from .conftest import WriteSettings


def test_current_picks_up_a_file_edit_without_restart(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"autoMemoryEnabled": True, "language": "en"})
    store = SettingsStore(paths, environ={})
    assert store.current().auto_memory_enabled is True

    write_settings(paths.user_settings, {"autoMemoryEnabled": False, "language": "en"})

    assert store.current().auto_memory_enabled is False


def test_current_sees_files_appear_and_disappear(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    store = SettingsStore(paths, environ={})
    assert store.current().model is None

    write_settings(paths.local_settings, {"model": "late"})
    assert store.current().model == "late"

    paths.local_settings.unlink()
    assert store.current().model is None


def test_current_returns_the_same_object_while_nothing_changed(paths: WavePaths) -> None:
    store = SettingsStore(paths, environ={})

    assert store.current() is store.current()


def test_corrupt_json_keeps_last_valid_values_and_reports_one_line(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {"model": "good", "language": "zh"})
    store = SettingsStore(paths, environ={})
    assert store.current().model == "good"

    write_settings(paths.project_settings, '{\n  "model": "half"\n  "language": "en"\n}')
    settings = store.current()

    assert (settings.model, settings.language) == ("good", "zh")
    assert settings.problems == (
        ".wave/settings.json: invalid JSON at line 3 column 3: Expecting ',' delimiter",
    )


def test_corrupt_json_that_was_never_valid_contributes_nothing(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, "{not json")

    settings = SettingsStore(paths, environ={}).current()

    assert settings.model is None
    assert len(settings.problems) == 1
    assert settings.problems[0].startswith("~/.wave/settings.json: invalid JSON at line 1 column 2")


def test_top_level_must_be_an_object(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(paths.local_settings, "[1, 2]")

    settings = SettingsStore(paths, environ={}).current()

    assert settings.problems == (
        ".wave/settings.local.json: must contain a JSON object (got list)",
    )


def test_wrong_type_names_the_key_and_keeps_the_other_keys(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(
        paths.user_settings,
        {"language": 5, "model": "ok", "permissions": {"allow": ["Read"], "defaultMode": "yolo"}},
    )

    settings = SettingsStore(paths, environ={}).current()

    assert settings.model == "ok"
    assert settings.language is None
    assert settings.permissions.allow == ("Read",)
    assert settings.permissions.default_mode is None
    assert settings.problems[0] == "~/.wave/settings.json: language: must be a string (got 5)"
    assert settings.problems[1].startswith(
        "~/.wave/settings.json: permissions.defaultMode: must be"
    )
    assert len(settings.problems) == 2


def test_wrong_nested_type_names_the_full_key(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(
        paths.project_settings,
        {
            "models": {
                "a": {"maxInputTokens": "big"},
                "b": {"capabilities": {"promptCaching": True}},
            }
        },
    )

    settings = SettingsStore(paths, environ={}).current()

    assert settings.problems == (
        '.wave/settings.json: models.a.maxInputTokens: must be an integer (got "big")',
    )
    assert settings.model_config_for("b").capabilities.prompt_caching is True
    assert "a" not in settings.models


def test_wrong_type_after_a_valid_value_keeps_the_last_valid_value(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"autoMemoryFrequency": 5, "language": "en"})
    store = SettingsStore(paths, environ={})
    assert store.current().auto_memory_frequency == 5

    write_settings(paths.user_settings, {"autoMemoryFrequency": 0, "language": "zh"})
    settings = store.current()

    assert (settings.auto_memory_frequency, settings.language) == (5, "zh")
    assert len(settings.problems) == 1


def test_each_problem_is_reported_once_while_it_persists(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    seen: list[str] = []
    write_settings(paths.user_settings, {"language": 5})
    store = SettingsStore(paths, environ={}, on_problem=seen.append)
    assert store.new_problems() == ["~/.wave/settings.json: language: must be a string (got 5)"]

    write_settings(paths.user_settings, {"language": 5, "model": "m"})
    store.current()
    store.current()
    assert store.new_problems() == []
    assert len(seen) == 1

    write_settings(paths.user_settings, {"model": "m"})
    assert store.current().problems == ()
    write_settings(paths.user_settings, {"language": 5})
    store.current()
    assert store.new_problems() == ["~/.wave/settings.json: language: must be a string (got 5)"]
    assert len(seen) == 2


def test_subscribers_hear_about_changes_only(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    heard: list[EffectiveSettings] = []
    store = SettingsStore(paths, environ={})
    unsubscribe = store.subscribe(heard.append)

    store.current()
    write_settings(paths.user_settings, {"language": "zh"})
    store.current()
    store.current()
    unsubscribe()
    write_settings(paths.user_settings, {"language": "en"})
    store.current()

    assert [s.language for s in heard] == ["zh"]


def test_unreadable_settings_path_is_reported_not_raised(paths: WavePaths) -> None:
    paths.user_settings.mkdir(parents=True)

    settings = SettingsStore(paths, environ={}).current()

    assert len(settings.problems) == 1
    assert settings.problems[0].startswith("~/.wave/settings.json: cannot read")


def test_empty_file_counts_as_empty_object(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(paths.user_settings, "")

    assert SettingsStore(paths, environ={}).current().problems == ()


def test_null_values_count_as_unset(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(paths.user_settings, {"model": "u"})
    write_settings(paths.project_settings, {"model": None, "models": None})

    settings = SettingsStore(paths, environ={})
    assert settings.current().model == "u"
    assert settings.current().problems == ()


def test_file_contents_written_by_other_tools_round_trip(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    body = {"models": {"m": {"capabilities": {"promptCaching": True, "future": 1}}}}
    write_settings(paths.user_settings, json.dumps(body))

    settings = SettingsStore(paths, environ={}).current()

    dumped = settings.model_config_for("m").model_dump(by_alias=True)
    assert dumped["capabilities"] == {"promptCaching": True, "vision": True, "future": 1}
