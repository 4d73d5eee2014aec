"""What each `autoMemoryWrites` mode means, in one line for `/memory`, `wave memory mode` and the
memory browser (MR1)."""

from __future__ import annotations

from wave_tui.config.schema import MemoryWrites
from wave_tui.config.settings import EffectiveSettings

MODE_MEANINGS: dict[MemoryWrites, str] = {
    "auto": "the extraction saves memories after turns",
    "review": "the extraction's proposals wait in the inbox (`wave memory inbox`)",
    "off": "recall only: memories load, no extraction runs, the agent's memory writes ask",
}


# req: MR1
def mode_line(settings: EffectiveSettings) -> str:
    """`memory writes: review — the extraction's proposals wait …` (auto memory off: says so)."""
    if not settings.auto_memory_enabled:
        return "memory writes: off — auto memory is off (autoMemoryEnabled)"
    mode = settings.auto_memory_writes
    return f"memory writes: {mode} — {MODE_MEANINGS[mode]}"
