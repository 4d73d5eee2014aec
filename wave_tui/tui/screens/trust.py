"""The trust prompt (HK10, MC8): project code that would run — hooks, `.mcp.json` servers —
listed once; yes trusts and remembers the set, no leaves it off for this session."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from wave_tui.session.types import TrustRequested
from wave_tui.tui.typed_ahead import AnswersByKey
from wave_tui.tui.widgets.footer import Footer

KIND_TITLES = {
    "hooks": "Hooks (run on agent events)",
    "mcp": "MCP servers (started now)",
    "lsp": "Language servers (started on first use)",
    "commands": "Custom commands (their allowed-tools)",
    "settings": "Settings (endpoint, credentials, telemetry, variables that run code)",
    "permissions": "Permissions (allow rules, starting mode, sandbox: run without asking)",
    "imports": "Memory imports from outside the project (sent to the model)",
}


TRUSTED_NAMES = {
    "hooks": "project hooks",
    "mcp": "project MCP servers",
    "commands": "commands",
    "lsp": "project language servers",
    "settings": "project settings",
    "permissions": "project permissions",
    "imports": "memory imports from outside the project",
}


# req: HK10
def trusted_notice(requests: Sequence[TrustRequested]) -> str:
    """What replaces the chat's "not trusted yet" notices once the user trusted."""
    names = " and ".join(TRUSTED_NAMES.get(r.kind, r.kind) for r in requests)
    return f"trusted: {names or 'project code'} run from now on"


# req: FH10
class TrustDialog(AnswersByKey, ModalScreen[bool]):
    """Asked seconds after start, when the project's servers are read: often over a message
    being typed, whose keys (Enter: "keep off") must not answer it (see `typed_ahead`)."""

    BINDINGS = [
        Binding("y", "answer(True)", "Trust", id="trust-project"),
        Binding("n,escape", "answer(False)", "Keep off", id="distrust-project"),
    ]

    def __init__(self, project: str, requests: Sequence[TrustRequested]) -> None:
        super().__init__(classes="dialog-screen")
        self.project = project
        self.requests = list(requests)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -danger"):
            yield Static(
                Content.assemble("Trust the code in ", (self.project, "bold"), "?"),
                classes="dialog-title",
            )
            yield Static(
                Content("This project would run these commands on your machine:"),
                classes="dialog-detail",
            )
            with VerticalScroll(classes="dialog-body trust-list"):
                for request in self.requests:
                    yield Static(
                        Content.styled(KIND_TITLES.get(request.kind, request.kind), "bold")
                    )
                    for item in request.items:
                        yield Static(f"  {item}", markup=False)
            yield Static(
                Content(
                    "Yes: they run, and wave remembers this set (a changed set asks again). "
                    "No: they stay off this session."
                ),
                classes="dialog-detail",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Trust (y)", variant="warning", id="trust")
                yield Button("Keep off (n)", id="distrust")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#distrust", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "trust")

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)
