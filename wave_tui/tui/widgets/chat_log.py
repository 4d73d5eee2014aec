"""The chat's scrolling log: it follows new output while its end is in view; scrolled up, new
output below raises `behind` (the screen shows a "↓ new output" marker) until the end is in view
again (CV9).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.reactive import reactive
from textual.widgets import Static

if TYPE_CHECKING:
    from wave_tui.agent import events as ev

NEW_OUTPUT = "↓ new output  ·  PageDown to follow"

# The keys the input hands to the chat. Home and End move the cursor in a draft, as in any text
# field; on an empty input there is no cursor to move, and they go to the chat's top and end.
PAGE_KEYS = frozenset({"pageup", "pagedown"})
EDGE_KEYS = frozenset({"home", "end"})
Subscribe = Callable[[Callable[["ev.AgentEvent"], None]], Callable[[], None]]


def chat_output() -> tuple[type, ...]:
    """The events that show in the chat as they come. A streamed word that lengthens a line
    below the view adds no height, so growth alone would not tell. (The agent's events load
    with the session, after the app's first frame.)"""
    from wave_tui.agent import events as ev

    return (*ev.TURN_EVENTS, ev.SubagentProgress)


class ChatLog(VerticalScroll):
    behind: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._unsubscribe: Callable[[], None] | None = None
        # The user scrolled away from the end (Textual releases the anchor then). Not read
        # from the scroll position: while the log follows, a settling layout can leave it a
        # line short of the end for a frame.
        self._away = False
        self._check_due = False
        self._output_kinds: tuple[type, ...] = ()

    def on_mount(self) -> None:
        self.anchor()

    def watch_output(self, subscribe: Subscribe) -> None:
        """Hear the session's events: output while scrolled up raises `behind`."""
        self._output_kinds = chat_output()
        self._unsubscribe = subscribe(self._saw)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    @property
    def at_end(self) -> bool:
        return self.scroll_y >= self.max_scroll_y

    def release_anchor(self) -> None:
        super().release_anchor()
        self._away = True

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.at_end:
            self._away = self.behind = False

    # req: CV9
    def watch_virtual_size(self, old: Size, new: Size) -> None:
        if new.height > old.height:
            self._output_came()

    def _saw(self, event: ev.AgentEvent) -> None:
        if isinstance(event, self._output_kinds):
            self._output_came()

    def _output_came(self) -> None:
        """Decided once the layout has settled: new content, and the user is away."""
        if self._away and not self._check_due:
            self._check_due = True
            self.call_after_refresh(self._check_behind)

    def _check_behind(self) -> None:
        self._check_due = False
        self.behind = self._away and not self.at_end

    # req: CV9
    def follow(self) -> None:
        """To the end, and stay there as output comes (a message was sent)."""
        self.scroll_end(animate=False, immediate=True)
        self._away = self.behind = False

    def take_key(self, key: str, input_empty: bool) -> bool:
        """PageUp / PageDown always; Home / End when the input is empty (True: scrolled)."""
        if key not in PAGE_KEYS and not (input_empty and key in EDGE_KEYS):
            return False
        if key == "pageup":
            self.scroll_page_up(animate=False)
        elif key == "pagedown":
            self.scroll_page_down(animate=False)
        elif key == "home":
            self.scroll_home(animate=False)
        else:
            self.follow()
        return True


class NewOutputMarker(Static):
    """One line under the log while output waits below the view; a click goes to the end."""

    DEFAULT_CSS = """
    NewOutputMarker {
        height: 1;
        padding: 0 1;
        color: $text-accent;
        background: $boost;
        text-align: center;
        display: none;
    }
    """

    def __init__(self, log: ChatLog, *, id: str | None = None) -> None:
        super().__init__(NEW_OUTPUT, markup=False, id=id)
        self._log = log

    def on_mount(self) -> None:
        self.watch(self._log, "behind", self._show)

    def _show(self, behind: bool) -> None:
        self.display = behind

    def on_click(self) -> None:
        self._log.follow()
