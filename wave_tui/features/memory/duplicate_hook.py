"""The main agent's memory writes are checked for repeats of existing memories (MX9).

A successful Write/Edit of a file in the auto-memory folder (MEMORY.md aside) whose text repeats
an AGENTS.md item or another memory gets one line appended to its tool result naming the entry.
The extraction fork does the same inside `extraction.py`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from wave_tui.agent.extensions import ToolCallInfo, ToolOutcome
from wave_tui.config.paths import WavePaths
from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.duplicates import duplicate_note
from wave_tui.tools.base import ToolResult


# req: MX9
class DuplicateNoteHook:
    """A ToolObserver: the note is added once, after the write."""

    def __init__(self, paths: WavePaths) -> None:
        self.paths = paths
        self.memory = AutoMemoryDir(paths)

    def _note(self, call: ToolCallInfo, result: ToolResult) -> str | None:
        if not call.row.writes_paths or result.is_error:
            return None
        for written in result.written_paths:
            if self.memory.contains(written) and not self.memory.is_index(written):
                return duplicate_note(Path(written), self.paths)
        return None

    def _apply(self, result: ToolResult, note: str | None) -> None:
        if note is not None and note not in result.content:
            result.content = f"{result.content}\n\n{note}"

    async def after_tool(self, outcome: ToolOutcome) -> None:
        note = await asyncio.to_thread(self._note, outcome.call, outcome.result)
        self._apply(outcome.result, note)
