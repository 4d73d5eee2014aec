"""The `/resume` picker: sessions with their names, filtered as you type (name, first prompt,
folder), Ctrl+A between this project's sessions and every project's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wave_tui.session.facade import size_text
from wave_tui.session.types import SessionSummary
from wave_tui.tui.screens.pickers import PICKER_WIDTH, PROMPT_WIDTH, Picker

FIXED_COLUMNS = 47  # marker, age, messages, size, and the dialog's and list's frames
TITLES = ("Resume a session of this project", "Resume a session of any project")
HINT = "Type to search · Ctrl+A: {other} · Enter resumes · Esc keeps this conversation"
OTHER = ("every project", "this project")
LoadRows = Callable[[], Awaitable[list[SessionSummary]]]


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _label(row: SessionSummary) -> str:
    text = f"[{row.name}] {row.first_prompt}" if row.name else row.first_prompt
    return f"{row.project.name}: {text}" if row.project else text


def _matches(row: SessionSummary, query: str) -> bool:
    haystack = " ".join((row.name or "", row.first_prompt, str(row.project or ""), row.id))
    return all(word in haystack.casefold() for word in query.casefold().split())


def session_options(rows: Sequence[SessionSummary], screen_width: int) -> list[Option]:
    """`screen_width`: the terminal's; the label gets what the other columns leave."""
    dialog = min(PICKER_WIDTH, int(screen_width * 0.95))
    width = max(12, min(PROMPT_WIDTH, dialog - FIXED_COLUMNS))
    return [
        Option(
            Content.assemble(
                ("● " if row.current else "  ", "$success"),
                (_fit(_label(row), width).ljust(width + 1), "bold"),
                (row.age.rjust(9), "$text-muted"),
                (f"  {row.message_count:>4} msgs", "$text-muted"),
                (f"  {size_text(row.size_bytes):>8}", "$text-muted"),
            ),
            id=row.id,
        )
        for row in rows
    ]


# req: FH11
class ResumePicker(Picker):
    """Dismisses with the chosen session's id (`rows` says which project it is of)."""

    BINDINGS = [
        *Picker.BINDINGS,
        Binding("ctrl+a", "toggle_projects", "All projects", id="resume-all"),
    ]

    def __init__(
        self,
        rows: Sequence[SessionSummary],
        load_all: LoadRows,
        load_here: LoadRows,
        screen_width: int = 120,
    ) -> None:
        self.rows = list(rows)
        self._loaders = (load_here, load_all)
        self._all = False
        self._query = ""
        self._width = screen_width
        super().__init__(
            TITLES[0],
            session_options(self.rows, screen_width),
            "No sessions for this project yet.",
            HINT.format(other=OTHER[0]),
        )

    def row(self, session_id: str) -> SessionSummary | None:
        return next((r for r in self.rows if r.id == session_id), None)

    def _title(self) -> str:
        title = TITLES[self._all]
        return f"{title} · search: {self._query}" if self._query else title

    def _show(self) -> None:
        shown = [r for r in self.rows if _matches(r, self._query)]
        self.options = session_options(shown, self._width)
        self.query_one(".dialog-title", Static).update(Content(self._title()))
        self.query_one(".dialog-detail", Static).update(
            Content(HINT.format(other=OTHER[self._all]))
        )
        lists = self.query("#picker-list")
        if lists:
            options = self.query_one("#picker-list", OptionList)
            options.clear_options()
            options.add_options(self.options)
            if self.options:
                options.highlighted = 0
            return
        if self.options:  # the list was empty when the picker opened
            empty = self.query_one(".dialog-body", Static)
            options = OptionList(*self.options, id="picker-list")
            self.query_one(".picker").mount(options, before=empty)
            empty.remove()
            options.focus()

    async def action_toggle_projects(self) -> None:
        self._all = not self._all
        self.rows = await self._loaders[self._all]()
        self._show()

    def on_key(self, event: events.Key) -> None:
        typed = event.character if event.is_printable else None
        if event.key == "backspace" and self._query:
            self._query = self._query[:-1]
        elif typed and (typed != " " or self._query):
            self._query += typed
        else:
            return
        event.stop()
        event.prevent_default()
        self._show()
