"""An `@path` attachment counts as a Read (UX16): rules whose `paths` match fire and nested
memory loads, through the same tool observers a Read goes through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wave_tui.agent.attachments import attached_paths
from wave_tui.agent.extensions import (
    Extensions,
    ToolCallInfo,
    ToolOutcome,
    TurnObserverBase,
    TurnStart,
)
from wave_tui.permissions.tool_table import READ
from wave_tui.tools.base import ToolResult


class AttachmentReads(TurnObserverBase):
    """A TurnObserver: each file attached to the prompt is handed to the tool observers as a
    finished Read; what they add (rules, nested memory) joins the turn's context."""

    def __init__(self, extensions: Extensions, workdir: Path) -> None:
        self._extensions = extensions
        self._workdir = workdir

    # req: UX16
    async def on_turn_start(self, prompt: str) -> TurnStart:
        context: list[str] = []
        for index, path in enumerate(attached_paths(prompt)):
            args: dict[str, Any] = {"file_path": str(path)}
            call = ToolCallInfo.of(f"attachment-{index}", READ, args, self._workdir)
            result = ToolResult("", summary="attached", context_paths=[path], read_paths=[path])
            outcome = ToolOutcome(call, result)
            for observer in self._extensions.tool_observers:
                await observer.after_tool(outcome)
            context.extend(message.content or "" for message in outcome.follow_ups)
        return TurnStart(context=tuple(text for text in context if text))
