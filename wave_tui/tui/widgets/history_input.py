"""The chat input: an Input that remembers what was sent (↑ / ↓ walk the history)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class HistoryInput(Input):
    BINDINGS = [
        Binding("up", "history_back", "Previous", id="history-back"),
        Binding("down", "history_forward", "Next", id="history-forward"),
    ]

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self.history: list[str] = []
        self._position: int | None = None
        self._draft = ""

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = None
        self._draft = ""

    def action_history_back(self) -> None:
        if not self.history:
            return
        if self._position is None:
            self._draft = self.value
            self._position = len(self.history)
        self._position = max(0, self._position - 1)
        self._show(self.history[self._position])

    def action_history_forward(self) -> None:
        if self._position is None:
            return
        self._position += 1
        if self._position >= len(self.history):
            self._position = None
            self._show(self._draft)
        else:
            self._show(self.history[self._position])

    def _show(self, text: str) -> None:
        self.value = text
        self.cursor_position = len(text)
