"""A yes/no question with the list of what would change (the browser's consolidation, MM5)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from wave_tui.tui.widgets.footer import Footer


class ConfirmAction(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "confirm", "Apply", id="confirm-action"),
        Binding("n,escape", "cancel", "Cancel", id="cancel-action"),
    ]

    def __init__(self, title: str, detail: str, confirm_label: str) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.detail = detail
        self.confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(self.title_text), classes="dialog-title")
            with VerticalScroll(classes="dialog-detail"):
                yield Static(self.detail, markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.confirm_label, variant="primary", id="confirm")
                yield Button("Cancel (n)", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
