"""Modal dialogs: delete confirmation, permission request, quick-add target."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from wave_tui.agent.events import PermissionChoice
from wave_tui.session.facade import MemoryScope, PermissionPreview
from wave_tui.tui.widgets.footer import Footer


class ConfirmDelete(ModalScreen[bool]):
    """Asks before a memory entry is removed from its file (M3)."""

    BINDINGS = [
        Binding("y", "confirm", "Delete", id="confirm-delete"),
        Binding("n,escape", "cancel", "Keep", id="cancel-delete"),
    ]

    def __init__(
        self,
        title: str,
        location: str,
        consequence: str = "Only this entry is removed; the rest of the file stays as it is.",
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.entry_title = title
        self.location = location
        self.consequence = consequence  # exactly what goes: one item, or a whole file (UX7)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -danger"):
            yield Static(Content("Delete this memory?"), classes="dialog-title")
            yield Static(self.entry_title, markup=False, classes="dialog-body")
            yield Static(
                Content.assemble(("from ", "$text-muted"), self.location),
                classes="dialog-detail",
            )
            yield Static(Content(self.consequence), classes="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Delete (y)", variant="error", id="confirm")
                yield Button("Keep (n)", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class PermissionDialog(ModalScreen[PermissionChoice]):
    """The agent wants to run a tool that needs approval: what it will do (the diff of an
    Edit/Write, the full Bash command) and what "always" would allow (UX2, UX18)."""

    BINDINGS = [
        Binding("y", "choose('allow_once')", "Allow once", id="allow-once"),
        Binding("a", "choose('allow_session')", "Always this session", id="allow-session"),
        Binding("n,escape", "choose('deny')", "Deny", id="deny"),
    ]

    def __init__(
        self,
        tool_name: str,
        key_arg: str,
        reason: str,
        *,
        grant_label: str = "",
        preview: PermissionPreview | None = None,
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.tool_name = tool_name
        self.key_arg = key_arg
        self.reason = reason
        self.grant_label = grant_label or "Always this session"
        self.preview = preview

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Static(
                Content.assemble("Allow ", (self.tool_name, "bold"), "?"), classes="dialog-title"
            )
            preview = self.preview
            if preview is not None and preview.kind == "command":
                yield Static(preview.text, markup=False, classes="dialog-body")
            elif self.key_arg:
                yield Static(self.key_arg, markup=False, classes="dialog-body")
            if preview is not None and preview.kind in ("diff", "new-file"):
                yield VerticalScroll(Static(_preview_text(preview)), classes="permission-preview")
            if self.reason:
                yield Static(self.reason, markup=False, classes="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Allow once (y)", variant="primary", id="allow_once")
                yield Button(f"{self.grant_label} (a)", id="allow_session")
                yield Button("Deny (n)", variant="error", id="deny")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "deny")

    def action_choose(self, choice: str) -> None:
        if choice == "allow_once":
            self.dismiss("allow_once")
        elif choice == "allow_session":
            self.dismiss("allow_session")
        else:
            self.dismiss("deny")


def _preview_text(preview: PermissionPreview) -> Content:
    """A diff coloured by line (untrusted text: never markup); a new file as it will be."""
    if preview.kind == "new-file":
        head = Content.styled(f"new file {preview.path}\n", "bold $success")
        return head + Content(preview.text)
    parts: list[Content] = []
    for line in preview.text.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "$accent"
        elif line.startswith("+"):
            style = "$success"
        elif line.startswith("-"):
            style = "$error"
        else:
            style = ""
        parts.append(Content.styled(line, style) if style else Content(line))
    return Content("\n").join(parts)


class MemoryTargetDialog(ModalScreen[MemoryScope | None]):
    """`# text` in the chat: save it to the project or the user AGENTS.md."""

    BINDINGS = [
        Binding("p", "choose('project')", "Project", id="save-project"),
        Binding("u", "choose('user')", "User", id="save-user"),
        Binding("escape", "choose('')", "Cancel", id="cancel-save"),
    ]

    def __init__(self, text: str, project_label: str, user_label: str) -> None:
        super().__init__(classes="dialog-screen")
        self.text = text
        self.project_label = project_label
        self.user_label = user_label

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content("Remember this where?"), classes="dialog-title")
            yield Static(self.text, markup=False, classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"Project: {self.project_label} (p)", variant="primary", id="project")
                yield Button(f"User: {self.user_label} (u)", id="user")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "")

    def action_choose(self, target: str) -> None:
        if target == "project":
            self.dismiss("project")
        elif target == "user":
            self.dismiss("user")
        else:
            self.dismiss(None)
