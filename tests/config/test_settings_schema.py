"""The one settings schema: field metadata, the generated README table, new keys, layers(),
the change counter, and X9 (a settings file that cannot be parsed is named and ignored)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.config.schema import ENV_FIELDS, FILE_KEYS, PERMISSION_MODES, settings_fields
from wave_tui.config.settings import SettingsStore
from wave_tui.config.settings_doc import DOC_PATH, render

from .conftest import WriteSettings

REPO = Path(__file__).resolve().parents[2]


def test_every_key_and_variable_is_described_once() -> None:
    fields = settings_fields()
    keys = [f.key for f in fields if f.key is not None]
    envs = [f.env for f in fields if f.env is not None]

    assert set(FILE_KEYS) <= set(keys)
    assert len(keys) == len(set(keys))
    assert sorted(envs) == sorted(ENV_FIELDS)
    assert all(f.description for f in fields)


def test_field_metadata_carries_bounds_choices_and_defaults() -> None:
    by_key = {f.key: f for f in settings_fields() if f.key}

    frequency = by_key["autoMemoryFrequency"]
    assert (frequency.type, frequency.minimum, frequency.maximum) == ("integer", 1, 100)
    assert by_key["permissions.defaultMode"].choices == PERMISSION_MODES
    assert by_key["cleanupPeriodDays"].default == 30
    assert by_key["notifications"].default is True
    assert by_key["autoMemoryReview"].default is False
    timeout = by_key["firstByteTimeout"]
    assert (timeout.type, timeout.minimum, timeout.minimum_exclusive) == ("number", 0, True)
    assert by_key["models.<name>.capabilities.promptCaching"].type == "boolean"


def test_readme_settings_table_is_generated_from_the_schema() -> None:
    """docs/readme/settings.md is up to date: run `python -m wave_tui.config.settings_doc`."""
    page = (REPO / DOC_PATH).read_text(encoding="utf-8")

    assert page == render()
    assert "| `autoMemoryFrequency` | integer |  | ≥ 1, ≤ 100 |" in page
    assert "| `WAVE_BASE_URL` | string |" in page


def test_new_keys_have_their_defaults(paths: WavePaths) -> None:
    s = SettingsStore(paths, environ={}).current()

    assert (s.hooks, s.mcp_servers) == ({}, {})
    assert (s.auto_memory_review, s.notifications, s.first_byte_timeout) == (False, True, None)


def test_new_keys_are_read_and_checked(paths: WavePaths, write_settings: WriteSettings) -> None:
    servers = {"docs": {"command": "docs-mcp", "args": []}}
    write_settings(
        paths.user_settings,
        {
            "autoMemoryReview": True,
            "notifications": False,
            "firstByteTimeout": 12.5,
            "mcpServers": servers,
        },
    )
    write_settings(
        paths.project_settings,
        {"firstByteTimeout": -1, "notifications": "off", "autoMemoryReview": "yes"},
    )
    write_settings(paths.local_settings, {"firstByteTimeout": "30"})

    s = SettingsStore(paths, environ={}).current()

    assert (s.auto_memory_review, s.notifications, s.first_byte_timeout) == (True, False, 12.5)
    assert s.mcp_servers == servers
    assert s.problems == (
        ".wave/settings.json: firstByteTimeout: must be greater than 0.0 (got -1)",
        '.wave/settings.json: notifications: must be true or false (got "off")',
        '.wave/settings.json: autoMemoryReview: must be true or false (got "yes")',
        '.wave/settings.local.json: firstByteTimeout: must be a number (got "30")',
    )


def test_layers_give_each_parsed_file_raw(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(paths.user_settings, {"hooks": {"Stop": [{"hooks": [1]}]}, "language": 5})
    write_settings(paths.local_settings, {"hooks": {"Stop": [{"hooks": [2]}]}})

    layers = SettingsStore(paths, environ={}).layers()

    assert [(layer.scope, layer.path) for layer in layers] == [
        ("user", paths.user_settings),
        ("local", paths.local_settings),
    ]
    assert layers[0].data == {"hooks": {"Stop": [{"hooks": [1]}]}}
    assert layers[1].data == {"hooks": {"Stop": [{"hooks": [2]}]}}


def test_layers_keep_the_last_valid_content_of_a_broken_file(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {"hooks": {"Stop": []}})
    store = SettingsStore(paths, environ={})
    write_settings(paths.project_settings, "{broken")

    assert [layer.data for layer in store.layers()] == [{"hooks": {"Stop": []}}]


def test_version_counts_changes_only(paths: WavePaths, write_settings: WriteSettings) -> None:
    store = SettingsStore(paths, environ={})
    start = store.version
    store.current()
    assert store.version == start

    write_settings(paths.user_settings, {"language": "zh"})
    store.current()
    store.current()
    assert store.version == start + 1

    write_settings(paths.user_settings, {"language": "zh"})  # new mtime, same content
    store.current()
    assert store.version == start + 1


def test_validation_never_reads_the_process_environment(
    paths: WavePaths, write_settings: WriteSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Field names such as `language` or `local` are not environment variables."""
    for name, value in {
        "LANGUAGE": "en_US:en",
        "LOCAL": "maybe",
        "MODELS": "x",
        "ENV": "y",
    }.items():
        monkeypatch.setenv(name, value)
    write_settings(paths.user_settings, {"language": "de", "model": "m"})

    s = SettingsStore(paths).current()

    assert (s.language, s.model, s.local, s.models, s.problems) == ("de", "m", None, {}, ())


def test_env_only_values_cannot_come_from_a_settings_file(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    """A cloned project's settings.json cannot point the endpoint or key elsewhere."""
    write_settings(
        paths.project_settings, {"baseUrl": "http://evil/v1", "apiKey": "x", "base_url": "y"}
    )

    s = SettingsStore(paths, environ={"WAVE_BASE_URL": "http://real/v1"}).current()

    assert (s.base_url, s.api_key) == ("http://real/v1", None)


@pytest.mark.req("X9")
@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_x9_recursion_names_the_file_and_keeps_the_environment(
    paths: WavePaths, write_settings: WriteSettings, text: str
) -> None:
    write_settings(paths.user_settings, text)
    write_settings(paths.project_settings, {"language": "zh"})
    environ = {"WAVE_BASE_URL": "http://real/v1", "WAVE_MODEL": "m"}

    s = SettingsStore(paths, environ=environ).current()

    assert (s.base_url, s.model, s.language) == ("http://real/v1", "m", "zh")
    assert s.problems == ("~/.wave/settings.json: nested too deeply to read; file ignored",)


@pytest.mark.req("X9")
def test_x9_nesting_below_the_interpreter_limit_is_refused_too(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    deep: object = 1
    for _ in range(500):
        deep = {"k": deep}
    write_settings(paths.user_settings, json.dumps({"hooks": deep, "model": "file"}))

    s = SettingsStore(paths, environ={"WAVE_BASE_URL": "http://real/v1"}).current()

    assert (s.base_url, s.model, s.hooks) == ("http://real/v1", None, {})
    assert s.problems == ("~/.wave/settings.json: nested deeper than 64 levels; file ignored",)


@pytest.mark.req("X9")
def test_x9_a_deep_file_after_a_good_one_keeps_the_last_valid_values(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"model": "good"})
    store = SettingsStore(paths, environ={})
    write_settings(paths.user_settings, "[" * 100_000)

    s = store.current()

    assert s.model == "good"
    assert len(s.problems) == 1


@pytest.mark.req("X9")
def test_x9_any_other_parse_failure_is_named_too(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    """json.loads raises a plain ValueError for an integer longer than 4300 digits."""
    write_settings(paths.project_settings, '{"cleanupPeriodDays": ' + "9" * 5000 + "}")

    s = SettingsStore(paths, environ={"WAVE_BASE_URL": "http://real/v1"}).current()

    assert s.base_url == "http://real/v1"
    assert len(s.problems) == 1
    assert s.problems[0].startswith(".wave/settings.json: cannot parse: Exceeds the limit")
    assert s.problems[0].endswith("; file ignored")
