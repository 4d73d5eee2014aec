"""A dialog around one list: a title, the list, a hint line and a footer; one key acts on the
highlighted row and Esc/q closes. `/tasks` and `/permissions` are two of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar, cast

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import OptionList, Static

from wave_tui.tui.widgets.footer import Footer

if TYPE_CHECKING:
    from wave_tui.tui.app import WaveApp


class ListDialog(ModalScreen[None]):
    """Subclasses name the texts, fill the list in `show_rows` and bind their key to an action
    that calls `act_on_highlighted`."""

    DIALOG_TITLE: ClassVar[str]
    LIST_ID: ClassVar[str]
    HINT: ClassVar[str]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    @property
    def rows(self) -> OptionList:
        return self.query_one(f"#{self.LIST_ID}", OptionList)

    def above_list(self) -> Iterable[Widget]:
        """What the dialog shows between its title and the list (nothing by default)."""
        return ()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Static(Content(self.DIALOG_TITLE), classes="dialog-title")
            yield from self.above_list()
            yield OptionList(id=self.LIST_ID)
            yield Static(Content(self.HINT), classes="dialog-detail")
        yield Footer()

    async def on_mount(self) -> None:
        await self.show_rows()
        self.rows.focus()

    async def show_rows(self) -> None:
        raise NotImplementedError

    async def act_on_highlighted(self, act: Callable[[str], str | None]) -> None:
        """`act` on the highlighted row's id; the line it returns is shown and the rows are read
        again, None means nothing changed."""
        rows = self.rows
        if rows.highlighted is None:
            return
        key = rows.get_option_at_index(rows.highlighted).id
        notice = act(key) if key else None
        if notice is not None:
            self.notify(notice, markup=False)
            await self.show_rows()

    def action_close(self) -> None:
        self.dismiss(None)
