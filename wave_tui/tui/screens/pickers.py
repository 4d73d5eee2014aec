"""Pickers: `/model` (the configured models, then the endpoint's) and `/resume` /
`wave --resume` (this project's sessions: first prompt, age, size)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wave_tui.session.facade import size_text
from wave_tui.session.types import ModelMenu, SessionSummary
from wave_tui.tui.widgets.footer import Footer

PROMPT_WIDTH = 48
PICKER_WIDTH = 96  # .picker in dialogs.tcss
FIXED_COLUMNS = 47  # marker, age, messages, size, and the dialog's and list's frames
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


def resume_picker(rows: Sequence[SessionSummary], screen_width: int = 120) -> Picker:
    """`screen_width`: the terminal's; the first prompt gets what the other columns leave."""
    dialog = min(PICKER_WIDTH, int(screen_width * 0.95))
    prompt_width = max(12, min(PROMPT_WIDTH, dialog - FIXED_COLUMNS))
    options = [
        Option(
            Content.assemble(
                ("● " if row.current else "  ", "$success"),
                (_fit(row.first_prompt, prompt_width).ljust(prompt_width + 1), "bold"),
                (row.age.rjust(9), "$text-muted"),
                (f"  {row.message_count:>4} msgs", "$text-muted"),
                (f"  {size_text(row.size_bytes):>8}", "$text-muted"),
            ),
            id=row.id,
        )
        for row in rows
    ]
    return Picker(
        "Resume a session of this project",
        options,
        "No sessions for this project yet.",
        "Enter resumes · Esc keeps the current conversation",
    )


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
