"""The chat input: a multi-line TextArea that sends on Enter and remembers what was sent.

Enter sends; Shift+Enter and Ctrl+J insert a newline (UX1); a paste keeps every line. ↑ on the
first line and ↓ on the last walk the history (UX19), Ctrl+R searches it; Ctrl+C clears the
input, and on an empty input asks the app to quit (twice in a row quits). Tab completes an
`@path` through the completer the screen installs.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from wave_tui.config.records import record


@record
class Completion:
    text: str  # the whole input after completing
    options: tuple[str, ...]  # the candidates, when more than one matched


# the input's text -> the completed text and the candidates, or None (nothing to complete)
Completer = Callable[[str], Completion | None]


class HistoryInput(TextArea):
    BINDINGS = [
        Binding("shift+enter,ctrl+j", "newline", "Newline", show=False, id="prompt-newline"),
        Binding("ctrl+r", "search_history", "Search history", show=False, id="history-search"),
        Binding("ctrl+c", "clear_or_quit", "Clear", show=False, id="prompt-clear"),
        Binding("tab", "complete", "Complete", show=False, id="prompt-complete"),
    ]

    @record(frozen=False)
    class Submitted(Message):
        input: HistoryInput
        value: str

    @record(frozen=False)
    class QuitRequested(Message):
        """Ctrl+C on an empty input; `confirmed` on the second press in a row."""

        confirmed: bool

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(
            "",
            id=id,
            placeholder=placeholder,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            compact=False,
        )
        self.past: list[str] = []
        self._position: int | None = None
        self._draft = ""
        self._search: str | None = None
        self._quit_armed = False
        self.completer: Completer | None = None
        # Up on an empty input recalls this (the last queued message) before the history.
        self.recall: Callable[[], str | None] | None = None

    # -- the value ---------------------------------------------------------------------------
    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self._show(text)

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    # -- keys --------------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        if event.key != "ctrl+c":
            self._quit_armed = False
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self._search = None
            self.post_message(self.Submitted(self, self.text))
            return
        await super()._on_key(event)

    # req: UX1
    def action_newline(self) -> None:
        self.insert("\n")

    # req: UX19
    def action_clear_or_quit(self) -> None:
        if self.selected_text:
            self.action_copy()
            return
        if self.text:
            self._show("")
            self._position = None
            self._search = None
            return
        self.post_message(self.QuitRequested(confirmed=self._quit_armed))
        self._quit_armed = True

    def action_complete(self) -> None:
        completion = self.completer(self.text) if self.completer is not None else None
        if completion is None:
            self.screen.focus_next()
            return
        if completion.text != self.text:
            self._show(completion.text)
        if len(completion.options) > 1:
            self.notify("  ".join(completion.options[:12]), title="@ completions", markup=False)

    # -- history -----------------------------------------------------------------------------
    def remember(self, text: str) -> None:
        if text and (not self.past or self.past[-1] != text):
            self.past.append(text)
        self._position = None
        self._draft = ""
        self._search = None

    def action_cursor_up(self, select: bool = False) -> None:
        if select or self.cursor_location[0] > 0:
            super().action_cursor_up(select)
            return
        self.action_history_back()

    def action_cursor_down(self, select: bool = False) -> None:
        if select or self.cursor_location[0] < self.document.line_count - 1:
            super().action_cursor_down(select)
            return
        self.action_history_forward()

    # req: UX19
    def action_history_back(self) -> None:
        recalled = (
            self.recall() if self._position is None and not self.text and self.recall else None
        )
        if recalled is not None:
            self._show(recalled)
            return
        if not self.past:
            return
        if self._position is None:
            self._draft = self.text
            self._position = len(self.past)
        self._position = max(0, self._position - 1)
        self._show(self.past[self._position])

    def action_history_forward(self) -> None:
        if self._position is None:
            return
        self._position += 1
        if self._position >= len(self.past):
            self._position = None
            self._show(self._draft)
        else:
            self._show(self.past[self._position])

    # req: UX19
    def action_search_history(self) -> None:
        """Ctrl+R: the newest entry containing what is typed; again: the one before it."""
        needle = self._search if self._search is not None else self.text
        self._search = needle
        start = self._position if self._position is not None else len(self.past)
        for index in range(start - 1, -1, -1):
            if needle in self.past[index]:
                if self._position is None:
                    self._draft = self.text
                self._position = index
                self._show(self.past[index])
                return
        self.notify(f"no earlier entry contains {needle!r}", markup=False, timeout=3)
