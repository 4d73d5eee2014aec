"""Token limits: override > models.<name>.maxInputTokens > WAVE_MAX_INPUT_TOKENS > default."""

from __future__ import annotations

from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import (
    DEFAULT_MAX_INPUT_TOKENS,
    DEFAULT_MAX_OUTPUT_TOKENS,
    SettingsStore,
    resolve_max_input_tokens,
    resolve_max_output_tokens,
)

from .conftest import WriteSettings


def test_max_input_tokens_resolution_order(paths: WavePaths, write_settings: WriteSettings) -> None:
    write_settings(paths.user_settings, {"models": {"big": {"maxInputTokens": 200_000}}})
    s = SettingsStore(paths, environ={"WAVE_MAX_INPUT_TOKENS": "64000"}).current()
    bare = SettingsStore(paths, environ={}).current()

    assert resolve_max_input_tokens(s, "big", override=1000) == 1000
    assert resolve_max_input_tokens(s, "big") == 200_000
    assert resolve_max_input_tokens(s, "other") == 64_000
    assert resolve_max_input_tokens(bare, "other") == DEFAULT_MAX_INPUT_TOKENS == 128_000


def test_max_output_tokens_resolution_order(paths: WavePaths) -> None:
    s = SettingsStore(paths, environ={"WAVE_MAX_OUTPUT_TOKENS": "2048"}).current()
    bare = SettingsStore(paths, environ={}).current()

    assert resolve_max_output_tokens(s, "m", override=100) == 100
    assert resolve_max_output_tokens(s, "m") == 2048
    assert resolve_max_output_tokens(bare, "m") == DEFAULT_MAX_OUTPUT_TOKENS == 8192
