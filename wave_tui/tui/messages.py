"""Textual messages the app posts to itself (the session's events, carried into the UI loop)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from wave_tui.agent.events import AgentEvent


class AgentEventPosted(Message):
    """An event of the agent session, carried into the UI's message loop."""

    def __init__(self, event: AgentEvent) -> None:
        super().__init__()
        self.event = event
