"""`/context` as a view: what the next request costs, per source (MX2)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from wave_tui.tui.widgets.footer import Footer


# req: MX2
class ContextView(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "close", "Close", id="close-context")]

    def __init__(self, report: str) -> None:
        super().__init__(classes="dialog-screen")
        self.report = report

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog work-dialog context-view"):
            yield Static(Content("Context of the next request"), classes="dialog-title")
            with VerticalScroll():
                yield Static(self.report, markup=False, id="context-report")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss()
