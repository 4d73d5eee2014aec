"""What runs in the background (the extraction fork, a compaction), on every screen (UX13).

The chat's status line shows it when the terminal is wide; on narrow terminals and on the
memory and settings screens this one-line indicator in the top-right corner does. It sits on the
toast layer so it never moves the screen's own layout.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container
from textual.widgets import Static

INDICATOR_ID = "background-indicator"


class BackgroundIndicator(Container, inherit_css=False):
    DEFAULT_CSS = """
    BackgroundIndicator {
        layer: _toastrack;
        dock: top;
        width: 1fr;
        height: 1;
        align: right top;
        visibility: hidden;
        display: none;
    }
    BackgroundIndicator > Static {
        width: auto;
        height: 1;
        visibility: visible;
        padding: 0 1;
        color: $text;
        background: $accent 40%;
    }
    """

    def __init__(self) -> None:
        super().__init__(id=INDICATOR_ID)
        self._label = Static("", markup=False)

    def compose(self) -> ComposeResult:
        yield self._label

    # req: UX13
    def show(self, background: str | None) -> None:
        """`background`: what runs ("extraction: saving"), None when nothing does."""
        self.display = background is not None
        if background is not None:
            self._label.update(f"● {background}")
