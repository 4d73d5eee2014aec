"""Before each main-agent request: tell the model which fully read files changed on disk (N1–N7)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from wave_tui.agent.hooks import AgentHook
from wave_tui.llm.types import Message
from wave_tui.memory.changes import detect_changes
from wave_tui.tools.read_state import ReadState

Notify = Callable[[str, str], None]


class FreshnessHook(AgentHook):
    def __init__(self, read_state: Callable[[], ReadState], root: Path, home: Path, notify: Notify):
        self.read_state = read_state
        self.root = root
        self.home = home
        self.notify = notify

    def display(self, path: Path) -> str:
        text = str(path)
        for base, prefix in ((self.root, ""), (self.home, "~/")):
            if path.is_relative_to(base):
                return prefix + os.path.relpath(path, base)
        return text

    def before_request(self) -> list[Message]:
        report = detect_changes(self.read_state(), self.display)
        message = report.message()
        if message is None:
            return []
        self.notify("changed", report.summary_line())
        return [message]
