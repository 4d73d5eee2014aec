"""The chat input: a multi-line TextArea that sends on Enter and remembers what was sent.

Enter takes the text and clears the input at once (CV1); Shift+Enter and Ctrl+J insert a
newline (UX1); a paste keeps every line. ↑ on the first line and ↓ on the last walk the history
(UX19), Ctrl+R searches it (the query shows in the border); Ctrl+C interrupts a running turn,
else clears the input, and on an empty one asks the app to quit (twice in a row quits). Tab
completes an `@path` through the completer the screen installs; several matches open the popup.

Every key is decided here, in the order the keys came (CV2): the input's own bindings, the
popup's keys and the chat's scroll keys run inside this widget's key handler. Left to Textual,
a binding runs once its key has bubbled up to the app — after the keys typed behind it were
already inserted.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import TextArea

from wave_tui.config.records import record


@record
class Completion:
    text: str  # the whole input after completing
    options: tuple[str, ...]  # the candidates, when more than one matched


# the input's text -> the completed text and the candidates, or None (nothing to complete)
Completer = Callable[[str], Completion | None]


class Popup(Protocol):
    """The completion list above the input (`/` commands, `@` paths)."""

    def take_key(self, key: str, prompt: HistoryInput) -> bool:
        """Act on `key` for the input's text as it is now; False when the popup has no use
        for it (closed, or a key it does not bind)."""
        ...

    def offer(self, text: str, options: tuple[str, ...]) -> None:
        """Show `options` (paths) for the trailing `@` token of `text`."""
        ...


SEARCH_TITLE = "search history: {query}"
# Keys whose answer comes from the session (`@path` completion, the clipboard's image): typed
# while it opens, they and every key after them wait for it, then run in the order typed (CV2).
WAITS_FOR_SESSION = frozenset({"tab", "ctrl+v"})


class HistoryInput(TextArea):
    BINDINGS = [
        Binding("shift+enter,ctrl+j", "newline", "Newline", show=False, id="prompt-newline"),
        Binding("ctrl+r", "search_history", "Search history", show=False, id="history-search"),
        Binding("ctrl+c", "clear_or_quit", "Clear", show=False, id="prompt-clear"),
        Binding("tab", "complete", "Complete", show=False, id="prompt-complete"),
        Binding("ctrl+v", "paste_image", "Paste image", show=False, id="prompt-paste-image"),
        Binding("ctrl+underscore", "undo", "Undo", show=False, id="prompt-undo"),
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
        self._search: str | None = None  # the Ctrl+R query while a search is on
        self._search_draft = ""  # what the input held when the search began
        # When a key last reached the input (a dialog opening under fast typing reads it).
        self.last_key_at = float("-inf")
        self._quit_armed = False
        self.completer: Completer | None = None
        # Up on an empty input recalls this (the last queued message) before the history.
        self.recall: Callable[[], str | None] | None = None
        self.popup: Popup | None = None
        # Ctrl+C: stop the running turn (True: there was one to stop).
        self.interrupt: Callable[[], bool] | None = None
        # PageUp / PageDown / Home / End for the chat (True: the chat took the key).
        self.scroll_chat: Callable[[str], bool] | None = None
        # Writes one sent message to the persistent history; `_unsaved` waits for it.
        self.save: Callable[[str], Awaitable[None]] | None = None
        self._unsaved: list[str] = []
        # A pasted image file path becomes the `@path` this returns (None: paste as it is).
        self.image_paste: Callable[[str], str | None] | None = None
        # Ctrl+V: the clipboard's image, as the `@path` to insert (the screen says why not).
        self.clipboard_image: Callable[[], Awaitable[str | None]] | None = None
        # While the session opens (`hold_keys`): the keys and pastes waiting for it.
        self._held: list[events.Key | events.Paste] | None = None

    # req: UX14
    def hold_keys(self) -> None:
        """The session is opening: from a key that needs it (and every paste: an image path
        becomes an `@path` through it), what is typed waits for `release_keys`."""
        self._held = []

    def release_keys(self) -> None:
        """The session is up: what waited runs now, in the order it was typed."""
        held, self._held = self._held or [], None
        for event in held:
            if isinstance(event, events.Paste):
                self.post_message(events.Paste(event.text))
            else:
                self.post_message(events.Key(event.key, event.character))

    def _hold(self, event: events.Key | events.Paste) -> bool:
        if self._held is None:
            return False
        if not (self._held or isinstance(event, events.Paste) or event.key in WAITS_FOR_SESSION):
            return False
        self._held.append(event)
        event.stop()
        event.prevent_default()
        return True

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

    # -- pasting -----------------------------------------------------------------------------
    # req: IM2
    async def _on_paste(self, event: events.Paste) -> None:
        # Textual calls TextArea's own handler after this one (it walks the classes), unless
        # the default is prevented: only an image path is taken here.
        if self._hold(event):
            return
        reference = self.image_paste(event.text) if self.image_paste is not None else None
        if reference is not None:
            event.stop()
            event.prevent_default()
            self.insert(reference)

    # req: IM3
    async def action_paste_image(self) -> None:
        if self.clipboard_image is None:
            self.action_paste()
            return
        reference = await self.clipboard_image()
        if reference is not None:
            self.insert(reference)

    # -- keys --------------------------------------------------------------------------------
    # req: CV2
    async def _on_key(self, event: events.Key) -> None:
        if self._hold(event):
            return
        key = event.key
        self.last_key_at = time.monotonic()
        if key != "ctrl+c":
            self._quit_armed = False
        if self._search is not None and key != "ctrl+r":
            if self._edit_search(key, event.character if event.is_printable else None):
                event.stop()
                event.prevent_default()
                return
            self._end_search()
        if self._take(key) or await self._run_binding(key):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def _take(self, key: str) -> bool:
        if self.popup is not None and self.popup.take_key(key, self):
            return True
        if self.scroll_chat is not None and self.scroll_chat(key):
            return True
        if key == "enter":
            self.submit()
            return True
        return False

    async def _run_binding(self, key: str) -> bool:
        """The input's own binding for `key`, run now: the same lookup as Textual's (the
        first binding whose action may run; wave sets no keymap), only not deferred until
        the key bubbled up."""
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    # req: CV1
    def take_typed_ahead(self, key: str, character: str | None) -> None:
        """A key typed for the message while a dialog opened over the input: it lands as if
        the input had had the focus (Enter sends, as ever)."""
        self.last_key_at = time.monotonic()
        if key == "enter":
            self.submit()
        elif key == "backspace":
            self.action_delete_left()
        elif character is not None:
            self.insert(character)

    # req: CV1
    def submit(self) -> None:
        """Take what the input holds at this instant and clear it at once; keys typed after
        this Enter land in the empty input, never in the message just sent."""
        text = self.text.strip()
        if not text:
            return
        self._show("")
        self.remember(text)
        self._save(text)
        self.post_message(self.Submitted(self, text))

    # req: UX1
    def action_newline(self) -> None:
        self.insert("\n")

    # req: CV6
    def action_clear_or_quit(self) -> None:
        """Ctrl+C: copy a selection; stop a running turn (the draft stays); clear the draft;
        on an empty, idle input ask to quit."""
        if self.selected_text:
            self.action_copy()
            return
        if self.interrupt is not None and self.interrupt():
            return
        if self.text:
            self._show("")
            self._position = None
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
        if len(completion.options) > 1 and self.popup is not None:
            self.popup.offer(completion.text, completion.options)

    # -- history -----------------------------------------------------------------------------
    def _save(self, text: str) -> None:
        """The persistent history gets each sent message once, in the order sent: one writer at
        a time (writes started side by side, each in its own thread, may land in either order).
        Sent before a writer is installed (the session still opening), it waits for `save_to`."""
        self._unsaved.append(text)
        if self.save is not None and len(self._unsaved) == 1:
            self.run_worker(self._write_unsaved(), group="history", exit_on_error=False)

    def save_to(self, save: Callable[[str], Awaitable[None]]) -> None:
        """Write the sent messages to `save` from now on, those sent before it first."""
        self.save = save
        if self._unsaved:
            self.run_worker(self._write_unsaved(), group="history", exit_on_error=False)

    async def _write_unsaved(self) -> None:
        while self._unsaved and self.save is not None:
            try:
                await self.save(self._unsaved[0])
            except OSError as exc:
                self.notify(f"input history not saved: {exc}", severity="warning", markup=False)
            self._unsaved.pop(0)

    def remember(self, text: str) -> None:
        if text and (not self.past or self.past[-1] != text):
            self.past.append(text)
        self._position = None
        self._draft = ""
        self._end_search()

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
        """Ctrl+R: search the history for what is typed (before or after Ctrl+R, as in a
        shell); the input shows the newest entry containing it, Ctrl+R again the one before.
        The query shows in the input's border; Esc puts the draft back, any other key ends
        the search on the match and acts on it (Enter sends it)."""
        if self._search is None:
            self._search = self.text
            self._search_draft = self.text
            self._position = None
            self._find(len(self.past))
            return
        self._find(self._position if self._position is not None else len(self.past))

    def _edit_search(self, key: str, character: str | None) -> bool:
        """A key typed while searching: it edits the query (True), or Esc cancels (True), or
        it ends the search (False: the key then acts as usual)."""
        assert self._search is not None
        if key == "escape":
            draft = self._search_draft
            self._end_search()
            self._position = None
            self._show(draft)
            return True
        if key == "backspace":
            self._search = self._search[:-1]
        elif character is not None and key not in ("enter", "tab"):
            self._search += character
        else:
            return False
        self._find(len(self.past))
        return True

    def _find(self, before: int) -> None:
        """Show the newest entry older than `before` that contains the query."""
        needle = self._search or ""
        # Plain text (no markup: the query is whatever was typed), on one line.
        title = SEARCH_TITLE.format(query=" ".join(needle.split()))
        for index in range(before - 1, -1, -1):
            if needle in self.past[index]:
                if self._position is None:
                    self._draft = self._search_draft
                self._position = index
                self._show(self.past[index])
                self.border_title = Content(title)
                return
        earlier = " earlier" if before < len(self.past) else ""
        self.border_title = Content(f"{title}  (no{earlier} match)")

    def _end_search(self) -> None:
        if self._search is not None:
            self._search = None
            self.border_title = None
