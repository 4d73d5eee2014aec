"""The `/` completion popup: matching commands with their descriptions, above the input (UX15).

It never takes focus: the chat screen feeds it the input's text (`show_for`) and forwards the
keys it binds while the popup is open (`COMPLETION_BINDINGS`: Tab accepts, ↑/↓ move, Esc
closes; Enter sends a complete command and accepts an incomplete one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from wave_tui.session.facade import CommandChoice

MAX_ROWS = 8
COMPLETION_BINDINGS = [
    Binding("tab", "complete_accept", "Complete", show=False, priority=True, id="complete"),
    Binding("up", "complete_move(-1)", show=False, priority=True, id="complete-up"),
    Binding("down", "complete_move(1)", show=False, priority=True, id="complete-down"),
    Binding("escape", "complete_close", show=False, priority=True, id="complete-close"),
    Binding("enter", "complete_enter", show=False, priority=True, id="complete-enter"),
]


def command_word(text: str) -> str | None:
    """The command name being typed (`/he` → `he`), or None once past the first word."""
    if not text.startswith("/") or any(c.isspace() for c in text):
        return None
    return text[1:]


class CommandPopup(OptionList):
    DEFAULT_CSS = """
    CommandPopup {
        height: auto;
        max-height: 10;
        border: round $primary;
        background: $surface;
        display: none;
    }
    """
    can_focus = False

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._names: list[str] = []

    @property
    def is_open(self) -> bool:
        return bool(self.display and self._names)

    def show_for(self, text: str, choices: Sequence[CommandChoice]) -> None:
        """Open with `choices` when `text` is a command word being typed; else close."""
        word = command_word(text)
        if word is None or not choices or (len(choices) == 1 and choices[0].name == word):
            self.close()
            return
        self._names = [c.name for c in choices]
        width = max(len(c.name) + len(c.argument_hint) for c in choices) + 3
        self.clear_options()
        self.add_options(Option(_row(c, width), id=c.name) for c in choices)
        self.highlighted = 0
        self.styles.max_height = min(len(choices), MAX_ROWS) + 2
        self.display = True

    def close(self) -> None:
        self._names = []
        self.display = False

    def move(self, delta: int) -> None:
        if self._names:
            current = self.highlighted or 0
            self.highlighted = (current + delta) % len(self._names)

    def selected_name(self) -> str | None:
        if not self._names:
            return None
        return self._names[self.highlighted or 0]

    def knows(self, name: str) -> bool:
        return name in self._names


def _row(choice: CommandChoice, width: int) -> Content:
    usage = f"/{choice.name}" + (f" {choice.argument_hint}" if choice.argument_hint else "")
    source = "" if choice.source == "built-in" else f"  ({choice.source})"
    return Content.assemble(
        (usage.ljust(width), "bold"), (choice.description, "$text-muted"), (source, "$text-muted")
    )
