"""The floor for `wave` in a real terminal (issue 36, item 4): a bare Textual app with an Input
and a Footer, run as any app runs (no headless, no exit at the first frame).

Usage: python bench/bare_app.py   (Ctrl+Q quits)
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Input


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Input(placeholder="Message")
        yield Footer()


if __name__ == "__main__":
    BareApp().run()
