"""`autoMemoryWrites` as the user sees and sets it: the mode in force and saving a new one to
the user settings, for `wave memory mode` and the browser (MR1)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from wave_tui.config.paths import WavePaths
from wave_tui.config.schema import MEMORY_WRITES, MemoryWrites
from wave_tui.config.settings import EffectiveSettings, SettingsStore, save_user_settings
from wave_tui.memory.modes import mode_line as mode_line


def current_settings(
    paths: WavePaths, environ: Mapping[str, str] | None = None
) -> EffectiveSettings:
    return SettingsStore(paths, dict(environ if environ is not None else os.environ)).current()


# req: MR1
def set_memory_mode(paths: WavePaths, mode: str) -> MemoryWrites:
    """Save `autoMemoryWrites` to the user settings (blocking I/O). ValueError for a bad mode."""
    chosen = next((m for m in MEMORY_WRITES if m == mode), None)
    if chosen is None:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MEMORY_WRITES)}")
    save_user_settings(paths, auto_memory_writes=chosen)
    return chosen
