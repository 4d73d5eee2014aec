"""Where `autoMemoryDirectory` moves auto memory: the key read through the settings' own reader.

Only the user's file counts: a project must not aim the agent's unasked memory writes at a folder
it picks. The file is parsed and the value validated exactly as `SettingsStore` does (its problems
are that store's to report), so the key has one spelling and one reading.
"""

from __future__ import annotations

from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.config.schema import SettingsSchema
from wave_tui.config.sources import parse_settings_file

KEY = SettingsSchema.model_fields["auto_memory_directory"].alias or "auto_memory_directory"


# req: MR6
def custom_memory_dir(paths: WavePaths) -> Path | None:
    """The user settings' `autoMemoryDirectory`, absolute or `~/…`; None when unset or neither."""
    values, _problems = parse_settings_file(paths.user_settings, str(paths.user_settings), {})
    value = (values or {}).get(KEY)
    if not isinstance(value, str) or not value.strip():
        return None
    if value == "~" or value.startswith("~/"):
        return paths.home / value[2:]
    path = Path(value)
    return path if path.is_absolute() else None
