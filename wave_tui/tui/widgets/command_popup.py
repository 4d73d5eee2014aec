"""The completion popup above the input: `/` commands with their descriptions (UX15), and the
files matching an `@` token when Tab found several.

It never takes focus: the input hands it the keys it binds while open (`take_key`: Tab
accepts, ↑/↓ move, Esc closes; Enter sends a complete command and accepts anything else), and
each is decided on the input's text as it is when the key lands — the popup first catches up
with that text, as its own refresh follows the input's `Changed` message, which may come later
(CV2).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from wave_tui.session.types import CommandChoice
    from wave_tui.tui.widgets.history_input import HistoryInput

MAX_ROWS = 8
Kind = Literal["command", "path"]
# the command word typed so far -> the commands it may become
Choices = Callable[[str], Sequence["CommandChoice"]]
TRAILING_AT = re.compile(r"(?:^|\s)@(\S*)$")
POPUP_KEYS = frozenset({"enter", "tab", "up", "down", "escape"})


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
        self._kind: Kind = "command"
        self._shown_for: str | None = None  # the input's text the rows were made for
        self.choices: Choices | None = None

    @property
    def is_open(self) -> bool:
        return bool(self.display and self._names)

    # -- following the input -----------------------------------------------------------------
    def follow(self, text: str) -> None:
        """The input holds `text`: show the commands it may become, or close. A path list
        stays only while the text is the one it was offered for."""
        if text == self._shown_for:
            return
        word = command_word(text)
        choices = self.choices(word) if word is not None and self.choices is not None else []
        self.show_for(text, choices)

    def show_for(self, text: str, choices: Sequence[CommandChoice]) -> None:
        """Open with `choices` when `text` is a command word being typed; else close."""
        self._shown_for = text
        word = command_word(text)
        if word is None or not choices or (len(choices) == 1 and choices[0].name == word):
            self._close_rows()
            return
        self._kind = "command"
        width = max(len(c.name) + len(c.argument_hint) for c in choices) + 3
        self._open([c.name for c in choices], [_row(c, width) for c in choices], None)

    def offer(self, text: str, options: tuple[str, ...]) -> None:
        """The files Tab found for the trailing `@` token of `text`, to arrow through."""
        self._shown_for = text
        if TRAILING_AT.search(text) is None or not options:
            self._close_rows()
            return
        self._kind = "path"
        rows = [Content.styled(option, "bold") for option in options]
        self._open(list(options), rows, f"@ {len(options)} matches")

    def _open(self, names: list[str], rows: list[Content], title: str | None) -> None:
        self._names = names
        self.clear_options()
        self.add_options(Option(row, id=name) for name, row in zip(names, rows, strict=True))
        self.highlighted = 0
        self.border_title = title
        self.styles.max_height = min(len(rows), MAX_ROWS) + 2
        self.display = True

    def close(self) -> None:
        self._close_rows()

    def _close_rows(self) -> None:
        self._names = []
        self.display = False

    # -- keys --------------------------------------------------------------------------------
    # req: CV2
    def take_key(self, key: str, prompt: HistoryInput) -> bool:
        """Act on `key` for the input's text as it is now (True: the key is used up)."""
        if key not in POPUP_KEYS:
            return False
        self.follow(prompt.text)
        if not self.is_open:
            return False
        if key == "enter" and self._kind == "command" and self.knows(command_word(prompt.text)):
            return False  # a complete command: Enter sends it
        if key in ("up", "down"):
            self.move(-1 if key == "up" else 1)
        elif key == "escape":
            self.close()
        else:  # Enter or Tab
            self.accept(prompt)
        return True

    def accept(self, prompt: HistoryInput) -> None:
        name = self.selected_name()
        if name is not None:
            text = prompt.text
            if self._kind == "command":
                text = f"/{name} "
            elif match := TRAILING_AT.search(text):
                text = text[: match.end() - len(match.group(1))] + name
            prompt.value = text
            self._shown_for = text  # the input's Changed for this text must not reopen it
        self.close()

    def move(self, delta: int) -> None:
        if self._names:
            current = self.highlighted or 0
            self.highlighted = (current + delta) % len(self._names)

    def selected_name(self) -> str | None:
        if not self._names:
            return None
        return self._names[self.highlighted or 0]

    def knows(self, name: str | None) -> bool:
        return name in self._names


def _row(choice: CommandChoice, width: int) -> Content:
    usage = f"/{choice.name}" + (f" {choice.argument_hint}" if choice.argument_hint else "")
    source = "" if choice.source == "built-in" else f"  ({choice.source})"
    return Content.assemble(
        (usage.ljust(width), "bold"), (choice.description, "$text-muted"), (source, "$text-muted")
    )
