"""`/permissions`: the mode, the allow/deny rules and this session's grants; `d` removes the
highlighted grant."""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets.option_list import Option

from wave_tui.tui.screens.list_dialog import ListDialog


class PermissionsScreen(ListDialog):
    BINDINGS = [
        Binding("d,delete", "remove_grant", "Remove grant", id="remove-grant"),
        Binding("escape,q", "close", "Close", id="close-permissions"),
    ]
    DIALOG_TITLE = "Permissions"
    LIST_ID = "grants"
    HINT = "d removes the highlighted grant · rules live in settings permissions"

    def above_list(self) -> Iterable[Widget]:
        yield Static("", id="permission-rules", markup=False)
        yield Static(Content("Granted this session"), classes="dialog-detail")

    async def show_rows(self) -> None:
        state = self.wave.session.permissions.state()
        rules = self.query_one("#permission-rules", Static)
        grants = self.rows
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

    async def action_remove_grant(self) -> None:
        await self.act_on_highlighted(self._revoke)

    def _revoke(self, grant: str) -> str | None:
        return f"Removed: {grant}" if self.wave.session.permissions.revoke_grant(grant) else None
