"""Textual messages the app posts to itself (service events and settings changes)."""

from __future__ import annotations

from textual.message import Message

from wave_tui.agent.events import AgentEvent
from wave_tui.config.settings import EffectiveSettings


class AgentEventPosted(Message):
    """An event of the agent service, carried into the UI's message loop."""

    def __init__(self, event: AgentEvent) -> None:
        super().__init__()
        self.event = event


class SettingsChanged(Message):
    """The effective settings changed (saved from the settings screen, or a file was edited)."""

    def __init__(self, settings: EffectiveSettings) -> None:
        super().__init__()
        self.settings = settings


class MemoryChanged(Message):
    """A memory file was written from the UI (quick-add); the memory browser should reload."""
