"""Pickers: the list screen they share, and `/model` (the configured models, then the
endpoint's); `/resume` / `wave --resume` is `resume_picker.py`."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wave_tui.session.types import ModelMenu
from wave_tui.tui.widgets.footer import Footer

PROMPT_WIDTH = 48
PICKER_WIDTH = 96  # .picker in dialogs.tcss
ROLE_LABELS = {
    "main": "model",
    "fast": "fast model",
    "configured": "models.*",
    "endpoint": "offered by the endpoint",
}
MODEL_HINT = "Enter switches from the next request · /model NAME picks any other"


class Picker(ModalScreen[str | None]):
    """A list to choose one id from; Enter picks, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel-pick")]

    def __init__(self, title: str, options: Sequence[Option], empty: str, hint: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.options = list(options)
        self.empty = empty
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Static(Content(self.title_text), classes="dialog-title")
            if self.options:
                yield OptionList(*self.options, id="picker-list")
            else:
                yield Static(Content(self.empty), classes="dialog-body")
            if self.hint:
                yield Static(Content(self.hint), classes="dialog-detail")
        yield Footer()

    def on_mount(self) -> None:
        if self.options:
            self.query_one("#picker-list", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def model_picker(menu: ModelMenu) -> Picker:
    choices = menu.choices
    width = max((len(c.name) for c in choices), default=0) + 2
    options = [
        Option(
            Content.assemble(
                ("● " if c.current else "  ", "$success"),
                (c.name.ljust(width), "bold" if c.current else ""),
                (ROLE_LABELS[c.role], "$text-muted"),
            ),
            id=c.name,
        )
        for c in choices
    ]
    return Picker(
        "Model for this session",
        options,
        'No model configured: set "model" (or models.*) in the settings (F3).',
        f"{menu.note}\n{MODEL_HINT}" if menu.note else MODEL_HINT,
    )
