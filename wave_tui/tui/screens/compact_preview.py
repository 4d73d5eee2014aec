"""The `/compact` preview (MM7): what will be kept and what dropped, and the summary draft,
before anything changes. Enter applies, `e` edits the summary first (Ctrl+S applies the edit,
Esc returns to the preview keeping it), Esc cancels: the conversation stays as it was."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from wave_tui.session.types import CompactionPreview
from wave_tui.tui.widgets.footer import Footer

# The dialog's answer: None = cancelled, else the summary to apply (the draft, or as edited).
Answer = str | None


class CompactPreview(ModalScreen[Answer]):
    DEFAULT_CSS = """
    CompactPreview { align: center middle; }
    CompactPreview > #compact-dialog {
        width: 90%; height: 90%; border: round $primary; padding: 0 1; background: $surface;
    }
    CompactPreview #compact-title { text-style: bold; }
    CompactPreview #compact-lists { height: 1fr; }
    CompactPreview .compact-heading { text-style: bold; margin-top: 1; }
    CompactPreview #compact-summary-edit { height: 1fr; display: none; }
    CompactPreview.-editing #compact-summary-edit { display: block; }
    CompactPreview.-editing #compact-lists { display: none; }
    """

    BINDINGS = [
        Binding("enter", "apply", "Apply", id="apply-compaction"),
        Binding("e", "edit", "Edit summary", id="edit-compaction-summary"),
        Binding("ctrl+s", "apply_edit", "Apply edit", id="apply-edited-summary"),
        Binding("escape", "cancel", "Cancel", id="cancel-compaction"),
    ]

    def __init__(self, preview: CompactionPreview) -> None:
        super().__init__(id="compact-preview")
        self.preview = preview
        self.summary = preview.summary

    def compose(self) -> ComposeResult:
        preview = self.preview
        with Vertical(id="compact-dialog"):
            yield Static(
                Content.assemble(
                    ("Compact the conversation?", "bold"),
                    (
                        f"  {len(preview.kept)} kept · {len(preview.dropped)} dropped into the "
                        "summary",
                        "$text-muted",
                    ),
                ),
                id="compact-title",
            )
            with VerticalScroll(id="compact-lists"):
                yield Static("Kept as they are", classes="compact-heading")
                yield Static(_lines(preview.kept), markup=False, id="compact-kept")
                yield Static("Dropped (the summary stands in for them)", classes="compact-heading")
                yield Static(_lines(preview.dropped), markup=False, id="compact-dropped")
                yield Static("Summary draft", classes="compact-heading")
                yield Static(self.summary, markup=False, id="compact-summary")
            yield TextArea(self.summary, id="compact-summary-edit")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        editing = self.has_class("-editing")
        if action in ("apply", "edit"):
            return not editing
        if action == "apply_edit":
            return editing
        return True

    def action_apply(self) -> None:
        self.dismiss(self.summary)

    def action_edit(self) -> None:
        self.add_class("-editing")
        editor = self.query_one("#compact-summary-edit", TextArea)
        editor.focus()
        self.refresh_bindings()

    def action_apply_edit(self) -> None:
        self.summary = self.query_one("#compact-summary-edit", TextArea).text
        self.dismiss(self.summary)

    def action_cancel(self) -> None:
        if self.has_class("-editing"):  # back to the preview, the edit kept
            self.summary = self.query_one("#compact-summary-edit", TextArea).text
            self.query_one("#compact-summary", Static).update(self.summary)
            self.remove_class("-editing")
            self.query_one("#compact-lists").focus()
            self.refresh_bindings()
            return
        self.dismiss(None)


def _lines(lines: list[str]) -> str:
    return "\n".join(f"• {line}" for line in lines) if lines else "(none)"
