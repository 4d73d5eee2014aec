"""Unknown keys in a settings file are named once per file; keys the contract names are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.wave_cli import run_wave
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore

from .conftest import WriteSettings

# Named by the contract (or 004) for features that read them themselves or come later.
CONTRACT_KEYS = [
    "worktree",
    "enabledPlugins",
    "extraKnownMarketplaces",
    "$schema",
]


def test_an_unknown_key_is_named_with_its_file(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"model": "m", "enableArtifact": True})

    settings = SettingsStore(paths, environ={}).current()

    assert settings.model == "m"
    assert settings.problems == ("~/.wave/settings.json: unknown key enableArtifact; ignored",)


def test_a_misspelt_key_is_named_with_the_key_it_resembles(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.project_settings, {"fastmodel": "f", "cleanupPeriodDay": 3})

    settings = SettingsStore(paths, environ={}).current()

    assert settings.fast_model is None
    assert settings.problems == (
        ".wave/settings.json: unknown keys fastmodel (did you mean fastModel?), "
        "cleanupPeriodDay (did you mean cleanupPeriodDays?); ignored",
    )


@pytest.mark.parametrize("key", CONTRACT_KEYS)
def test_keys_the_contract_names_do_not_warn(
    key: str, paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.local_settings, {key: {"baseRef": "head"} if key == "worktree" else {}})

    settings = SettingsStore(paths, environ={}).current()

    assert settings.problems == ()
    assert key in settings.extras


def test_the_warning_is_told_once_until_the_file_changes(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    told: list[str] = []
    write_settings(paths.user_settings, {"enableArtifact": True})
    store = SettingsStore(paths, environ={}, on_problem=told.append)
    store.current()
    store.current()
    write_settings(paths.user_settings, {"enableArtifact": True, "model": "m"})
    store.current()

    assert told == ["~/.wave/settings.json: unknown key enableArtifact; ignored"]


def test_wave_p_warns_once_per_file_and_answers(
    isolated_home: Path, project: Path, model_server: ModelServer
) -> None:
    (isolated_home / ".wave").mkdir()
    (isolated_home / ".wave" / "settings.json").write_text(
        json.dumps({"enableArtifact": True, "worktree": {"baseRef": "head"}})
    )
    (project / ".wave").mkdir()
    (project / ".wave" / "settings.json").write_text(json.dumps({"modle": "x"}))
    model_server.enqueue(text("fine"))

    proc = run_wave(
        "-p", "hi", cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "1"}
    )

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "fine\n"
    assert proc.stderr.splitlines() == [
        "wave: warning: ~/.wave/settings.json: unknown key enableArtifact; ignored",
        "wave: warning: .wave/settings.json: unknown key modle (did you mean model?); ignored",
    ]
