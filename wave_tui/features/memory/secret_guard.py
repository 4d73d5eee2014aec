"""No credentials into any memory file, whoever writes: a tool guard over Write and Edit.

The auto-memory hook guards its own folder; this guard covers every file memory is loaded from
(`memory/secrets.py` `is_memory_file`: AGENTS.md and its kin anywhere, rules, `~/.wave/AGENTS.md`,
team memory) and judges the file as the call would leave it, so a key written in two Edits is
refused at the second.
"""

from __future__ import annotations

import asyncio

from wave_tui.agent.extensions import ToolCallInfo
from wave_tui.config.paths import WavePaths
from wave_tui.memory.runs import read_or_none
from wave_tui.memory.secrets import is_memory_file, secret_refusal, text_after


class MemorySecretGuard:
    """A `ToolGuard`: the refusal for a Write/Edit that would leave a secret in memory."""

    def __init__(self, paths: WavePaths) -> None:
        self._paths = paths

    async def check(self, call: ToolCallInfo) -> str | None:
        target = call.facts.target
        if not call.row.writes_paths or target is None:
            return None
        if not is_memory_file(target, self._paths):
            return None
        current = await asyncio.to_thread(read_or_none, target)
        return secret_refusal(text_after(call.name, call.args, current))
