"""`visionModel` (or WAVE_VISION_MODEL) and `webSearch` are settings keys of the schema."""

from __future__ import annotations

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore

from .conftest import WriteSettings


@pytest.mark.req("IM5")
def test_vision_model_from_a_file_and_the_environment(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"visionModel": "qwen-vl"})
    assert SettingsStore(paths, environ={}).current().vision_model == "qwen-vl"
    store = SettingsStore(paths, environ={"WAVE_VISION_MODEL": "smart"})
    assert store.current().vision_model == "smart"


@pytest.mark.req("WS1")
def test_web_search_backend_and_a_bad_provider(
    paths: WavePaths, write_settings: WriteSettings
) -> None:
    write_settings(paths.user_settings, {"webSearch": {"provider": "brave", "apiKey": "k"}})
    config = SettingsStore(paths, environ={}).current().web_search
    assert config is not None and (config.provider, config.api_key) == ("brave", "k")
    write_settings(paths.project_settings, {"webSearch": {"provider": "bing"}})
    settings = SettingsStore(paths, environ={}).current()
    assert len(settings.problems) == 1 and "webSearch" in settings.problems[0]
