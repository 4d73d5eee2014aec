"""`/permissions`: the mode, the allow/deny rules and this session's grants; `d` removes the
highlighted grant."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wave_tui.tui.widgets.footer import Footer

if TYPE_CHECKING:
    from wave_tui.tui.app import WaveApp


class PermissionsScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("d,delete", "remove_grant", "Remove grant", id="remove-grant"),
        Binding("escape,q", "close", "Close", id="close-permissions"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Static(Content("Permissions"), classes="dialog-title")
            yield Static("", id="permission-rules", markup=False)
            yield Static(Content("Granted this session"), classes="dialog-detail")
            yield OptionList(id="grants")
            yield Static(
                Content("d removes the highlighted grant · rules live in settings permissions"),
                classes="dialog-detail",
            )
        yield Footer()

    def on_mount(self) -> None:
        self._show()
        self.query_one("#grants", OptionList).focus()

    def _show(self) -> None:
        state = self.wave.session.permissions.state()
        rules = self.query_one("#permission-rules", Static)
        grants = self.query_one("#grants", OptionList)
        grants.clear_options()
        if state is None:
            rules.update("The agent could not start.")
            return
        rules.update(
            "\n".join(
                (
                    f"Mode:  {state.mode}   (shift+tab cycles)",
                    f"Allow: {', '.join(state.allow) or 'none'}",
                    f"Deny:  {', '.join(state.deny) or 'none'}",
                )
            )
        )
        if state.session_grants:
            grants.add_options(Option(Content(g), id=g) for g in state.session_grants)
            grants.highlighted = 0
        else:
            grants.add_option(Option(Content.styled("none", "$text-muted"), id="", disabled=True))

    def action_remove_grant(self) -> None:
        grants = self.query_one("#grants", OptionList)
        if grants.highlighted is None:
            return
        grant = grants.get_option_at_index(grants.highlighted).id
        if grant and self.wave.session.permissions.revoke_grant(grant):
            self.notify(f"Removed: {grant}", markup=False)
            self._show()

    def action_close(self) -> None:
        self.dismiss(None)
