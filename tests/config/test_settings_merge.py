"""Merging the three settings files: user < project < local (contract: Configuration)."""

from __future__ import annotations

from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import DEFAULT_CLEANUP_PERIOD_DAYS, ModelConfig, SettingsStore

from .conftest import WriteSettings


def test_later_file_wins_user_then_project_then_local(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"model": "u", "fastModel": "uf", "language": "en"})
    write_settings(paths.project_settings, {"model": "p", "fastModel": "pf"})
    write_settings(paths.local_settings, {"model": "l"})

    settings = SettingsStore(paths, environ={}).current()

    assert (settings.model, settings.fast_model, settings.language) == ("l", "pf", "en")
    assert settings.problems == ()


def test_models_and_env_are_merged_deeply(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(
        paths.user_settings,
        {
            "models": {"m": {"capabilities": {"promptCaching": True}, "options": {"t": 1}}},
            "env": {"A": "user", "B": "user"},
        },
    )
    write_settings(
        paths.project_settings,
        {"models": {"m": {"maxInputTokens": 1000, "options": {"r": "high"}}, "n": {}}},
    )
    write_settings(paths.local_settings, {"env": {"B": "local"}})

    settings = SettingsStore(paths, environ={}).current()

    m = settings.model_config_for("m")
    assert m.capabilities.prompt_caching is True
    assert m.max_input_tokens == 1000
    assert m.options == {"t": 1, "r": "high"}
    assert set(settings.models) == {"m", "n"}
    assert settings.env == {"A": "user", "B": "local"}


def test_permission_lists_are_concatenated_and_default_mode_last_wins(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(
        paths.user_settings,
        {"permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"], "defaultMode": "plan"}},
    )
    write_settings(paths.project_settings, {"permissions": {"allow": ["Edit", "Read"]}})
    write_settings(
        paths.local_settings, {"permissions": {"deny": ["Write"], "defaultMode": "acceptEdits"}}
    )

    # The invoker's trust (`wave -p`): the project's widening keys apply, so they merge.
    perms = SettingsStore(paths, environ={}, trust="invoker").current().permissions

    assert perms.allow == ("Read", "Edit")
    assert perms.deny == ("Bash(rm:*)", "Write")
    assert perms.default_mode == "acceptEdits"


def test_defaults_when_no_file_exists(paths: WavePaths) -> None:
    settings = SettingsStore(paths, environ={}).current()

    assert settings.model is None
    assert settings.auto_memory_enabled is True
    assert settings.auto_memory_frequency == 1
    assert settings.cleanup_period_days == DEFAULT_CLEANUP_PERIOD_DAYS == 30
    assert settings.model_config_for("anything") == ModelConfig()
    assert settings.model_config_for("anything").capabilities.prompt_caching is False
    assert settings.model_config_for("anything").capabilities.vision is True
    assert settings.problems == ()


def test_unknown_keys_are_kept_as_extras(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(
        paths.user_settings,
        {"statusLine": {"type": "command"}, "hooks": {"Stop": [1]}, "spinnerTipsEnabled": False},
    )
    write_settings(paths.project_settings, {"statusLine": {"padding": 2}, "hooks": {"Pre": [2]}})

    settings = SettingsStore(paths, environ={}).current()

    assert settings.extras == {
        "statusLine": {"type": "command", "padding": 2},
        "spinnerTipsEnabled": False,
    }
    assert settings.hooks == {"Stop": [1], "Pre": [2]}
    assert settings.problems == (  # kept, but named: wave-tui has neither feature
        "~/.wave/settings.json: unknown keys statusLine, spinnerTipsEnabled; ignored",
        ".wave/settings.json: unknown key statusLine; ignored",
    )


def test_other_keys_read_from_files(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(
        paths.project_settings,
        {"cleanupPeriodDays": 0, "local": True, "localModel": "qwen", "language": "zh"},
    )

    settings = SettingsStore(paths, environ={}).current()

    assert settings.cleanup_period_days == 0
    assert (settings.local, settings.local_model, settings.language) == (True, "qwen", "zh")


def test_effective_settings_are_immutable(paths: WavePaths) -> None:
    settings = SettingsStore(paths, environ={}).current()
    try:
        settings.model = "x"  # type: ignore[misc]
    except AttributeError:
        return
    raise AssertionError("EffectiveSettings must be frozen")
