"""WAVE_* environment variables, and the settings files' `env` block (contract: Configuration)."""

from __future__ import annotations

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore

from .conftest import WriteSettings


def test_wave_variables_are_read_from_the_given_mapping(paths: WavePaths) -> None:
    environ = {
        "WAVE_MODEL": "main",
        "WAVE_FAST_MODEL": "fast",
        "WAVE_API_KEY": "sk-1",
        "WAVE_BASE_URL": "http://llm/v1",
        "WAVE_CUSTOM_HEADERS": '{"X-Team": "core", "X-Env": "dev"}',
        "WAVE_MAX_INPUT_TOKENS": "64000",
        "WAVE_MAX_OUTPUT_TOKENS": "4096",
    }

    s = SettingsStore(paths, environ=environ).current()

    assert (s.model, s.fast_model, s.api_key, s.base_url) == (
        "main",
        "fast",
        "sk-1",
        "http://llm/v1",
    )
    assert s.custom_headers == {"X-Team": "core", "X-Env": "dev"}
    assert (s.max_input_tokens, s.max_output_tokens) == (64000, 4096)
    assert s.problems == ()


def test_default_environment_is_os_environ(
    paths: WavePaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_API_KEY", "from-os")

    assert SettingsStore(paths).current().api_key == "from-os"


def test_settings_env_supplies_wave_variables(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    # The user's own file: a project's endpoint waits for trust (tests/config/test_project_guard.py).
    write_settings(paths.user_settings, {"env": {"WAVE_BASE_URL": "http://settings"}})

    assert SettingsStore(paths, environ={}).current().base_url == "http://settings"


def test_real_environment_beats_settings_env(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(
        paths.user_settings, {"env": {"WAVE_API_KEY": "from-file", "WAVE_BASE_URL": "http://f"}}
    )

    s = SettingsStore(paths, environ={"WAVE_API_KEY": "from-env"}).current()

    assert s.api_key == "from-env"
    assert s.base_url == "http://f"
    assert s.env == {"WAVE_API_KEY": "from-file", "WAVE_BASE_URL": "http://f"}


def test_real_wave_model_beats_settings_model_which_beats_settings_env(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(
        paths.user_settings,
        {"model": "chosen-in-settings", "env": {"WAVE_MODEL": "settings-env"}},
    )

    s = SettingsStore(paths, environ={"WAVE_MODEL": "env", "WAVE_FAST_MODEL": "env-fast"}).current()
    assert (s.model, s.fast_model) == ("env", "env-fast")

    s = SettingsStore(paths, environ={}).current()
    assert s.model == "chosen-in-settings"


def test_custom_headers_that_are_not_json_are_reported_not_fatal(paths: WavePaths) -> None:
    s = SettingsStore(
        paths, environ={"WAVE_CUSTOM_HEADERS": "X-Team: core", "WAVE_API_KEY": "k"}
    ).current()

    assert s.custom_headers == {}
    assert s.api_key == "k"
    assert s.problems == ('WAVE_CUSTOM_HEADERS: not valid JSON (got "X-Team: core")',)


def test_custom_headers_must_be_an_object_of_strings(paths: WavePaths) -> None:
    s = SettingsStore(paths, environ={"WAVE_CUSTOM_HEADERS": '{"X-N": 1}'}).current()

    assert s.custom_headers == {}
    assert s.problems[0].startswith("WAVE_CUSTOM_HEADERS: must be a JSON object of string values")


def test_bad_token_numbers_are_reported_and_ignored(paths: WavePaths) -> None:
    s = SettingsStore(
        paths, environ={"WAVE_MAX_INPUT_TOKENS": "lots", "WAVE_MAX_OUTPUT_TOKENS": "0"}
    ).current()

    assert (s.max_input_tokens, s.max_output_tokens) == (None, None)
    assert s.problems == (
        'WAVE_MAX_INPUT_TOKENS: must be an integer (got "lots")',
        'WAVE_MAX_OUTPUT_TOKENS: must be greater than 0 (got "0")',
    )


def test_bad_value_from_settings_env_names_its_origin(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {"env": {"WAVE_MAX_INPUT_TOKENS": "x"}})

    s = SettingsStore(paths, environ={}).current()

    assert s.problems == ('settings env WAVE_MAX_INPUT_TOKENS: must be an integer (got "x")',)


def test_empty_variables_count_as_unset(paths: WavePaths) -> None:
    s = SettingsStore(paths, environ={"WAVE_MODEL": "", "WAVE_MAX_INPUT_TOKENS": ""}).current()

    assert (s.model, s.max_input_tokens, s.problems) == (None, None, ())
