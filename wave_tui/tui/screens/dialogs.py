"""Modal dialogs: delete confirmation, permission request, quick-add target."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Static
from textual.widgets.button import ButtonVariant

from wave_tui.agent.events import AskingAgent, PermissionAnswer
from wave_tui.session.types import GrantOption, MemoryScope, PermissionPreview
from wave_tui.tui.screens.confirm_action import YesNoDialog
from wave_tui.tui.typed_ahead import AnswersByKey
from wave_tui.tui.widgets.footer import Footer


class ConfirmDelete(YesNoDialog):
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


# Outside a dialog: the footer, and a spare row so the dialog never touches the screen's edge.
_OUTSIDE_ROWS = 2
_MIN_BODY_ROWS = 3
GRANT_KEYS = ("a", "e")  # the first "always" option (a prefix rule for Bash), then the exact one


# req: CV10
class PermissionDialog(AnswersByKey, ModalScreen[PermissionAnswer]):
    """The agent wants to run a tool that needs approval: who asks, what it will do (the diff of
    an Edit/Write, the full Bash command with its description and background flag, an MCP tool's
    arguments) and what each "always" would allow (UX2, UX18). The body scrolls; the choices
    stay on screen at any size."""

    BINDINGS = [
        Binding("y", "choose('allow_once')", "Allow once", id="allow-once"),
        Binding("a", "always(0)", "Always…", id="allow-session"),
        Binding("e", "always(1)", "Always (exact)", id="allow-exact", show=False),
        Binding("n", "choose('deny')", "Deny", id="deny"),
        Binding("w", "say_why", "No, and say why", id="deny-why"),
        Binding("escape", "back_or_stop", "Deny + stop", id="deny-escape", show=False),
        Binding("up", "app.focus_previous", show=False),
        Binding("down", "app.focus_next", show=False),
        Binding("pageup", "scroll_body(-1)", show=False),
        Binding("pagedown", "scroll_body(1)", show=False),
    ]

    def __init__(
        self,
        tool_name: str,
        key_arg: str,
        reason: str,
        *,
        grants: Sequence[GrantOption] = (),
        preview: PermissionPreview | None = None,
        agent: AskingAgent | None = None,
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.tool_name = tool_name
        self.key_arg = key_arg
        self.reason = reason
        self.grants = tuple(grants)[: len(GRANT_KEYS)]
        self.preview = preview
        self.agent = agent
        # Esc: the call is refused and the turn stops (the asker aborts it once answered).
        self.stops_turn = False

    @property
    def grant_label(self) -> str:
        """The first "always" choice's label (what `a` grants)."""
        return self.grants[0].label if self.grants else ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker permission-dialog"):
            yield Static(
                Content.assemble("Allow ", (self.tool_name, "bold"), "?"), classes="dialog-title"
            )
            with VerticalScroll(id="permission-body"):
                yield from self._body()
            with Vertical(id="permission-choices", classes="dialog-choices"):
                yield choice_button("y", "Allow once", "allow_once", variant="primary")
                for n, (key, grant) in enumerate(zip(GRANT_KEYS, self.grants, strict=False)):
                    yield choice_button(key, grant.label, f"grant-{n}")
                yield choice_button("n", "Deny, the model goes on", "deny", variant="error")
                yield choice_button("w", "No, and say why…", "deny_why")
                yield choice_button("esc", "Deny and stop the turn", "deny_stop")
            yield Input(
                placeholder="What should it do instead? Enter sends, Esc goes back",
                id="deny-reason",
                classes="-hidden",
            )
        yield Footer()

    def _body(self) -> Iterator[Static]:
        if self.agent is not None:
            yield Static(
                Content.assemble(
                    ("asked by the ", "$text-muted"),
                    (self.agent.agent_type, "bold"),
                    (" subagent: ", "$text-muted"),
                    self.agent.description,
                ),
                classes="permission-agent",
            )
        preview = self.preview
        if preview is not None and preview.kind == "command":
            if preview.description:
                yield Static(Content(preview.description), classes="permission-description")
            if preview.background:
                yield Static(
                    Content.styled("runs in the background: the call returns at once", "$warning"),
                    classes="permission-background",
                )
            yield Static(preview.text, markup=False, classes="permission-command")
        elif self.key_arg:
            yield Static(self.key_arg, markup=False, classes="permission-command")
        if preview is not None and preview.kind in ("diff", "new-file", "arguments", "refusal"):
            yield Static(_preview_text(preview), classes="permission-preview")
        if self.reason:
            yield Static(self.reason, markup=False, classes="dialog-detail")

    def on_mount(self) -> None:
        for button in self.query("#allow_once"):
            button.focus()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        fit_body(self, ".permission-dialog", "#permission-body")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id or "deny"
        if button.startswith("grant-"):
            self.action_always(int(button.removeprefix("grant-")))
        elif button == "deny_why":
            self.action_say_why()
        elif button == "deny_stop":
            self.action_back_or_stop()
        else:
            self.action_choose(button)

    def action_choose(self, choice: str) -> None:
        if choice == "allow_once":
            self.dismiss(PermissionAnswer("allow_once"))
        else:
            self.dismiss(PermissionAnswer("deny"))

    def action_always(self, index: int) -> None:
        if index < len(self.grants):
            option = self.grants[index]
            self.dismiss(PermissionAnswer("allow_session", option.kind, rules=option.rules))

    # req: CV15
    def action_say_why(self) -> None:
        """Open the field for the reason; Enter denies with it."""
        field = self.query_one("#deny-reason", Input)
        field.remove_class("-hidden")
        field.focus()
        self.call_after_refresh(self._fit)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(PermissionAnswer("deny", feedback=event.value.strip()))

    # req: FH3
    def action_back_or_stop(self) -> None:
        """Esc: out of the reason field; else refuse the call and stop the turn (as Claude
        Code's Esc), where `n` refuses and lets the model go on."""
        field = self.query_one("#deny-reason", Input)
        if field.display:
            field.add_class("-hidden")
            self.query_one("#deny_why", Button).focus()
            self.call_after_refresh(self._fit)
        else:
            self.stops_turn = True
            self.dismiss(PermissionAnswer("deny"))

    def action_scroll_body(self, pages: int) -> None:
        body = self.query_one("#permission-body", VerticalScroll)
        if pages < 0:
            body.scroll_page_up()
        else:
            body.scroll_page_down()


def fit_body(screen: Screen[Any], dialog_selector: str, body_selector: str) -> None:
    """Cap the body, the part of the dialog that scrolls, so that the dialog with all its other
    parts (the choices above all) fits the screen: a long command or plan never pushes a button
    off it. Margins are counted in full (an upper bound: siblings' margins collapse)."""
    dialogs, bodies = screen.query(dialog_selector), screen.query(body_selector)
    if not dialogs or not bodies:
        return  # dismissed before its first layout (the turn ended)
    dialog, body = dialogs.first(), bodies.first()
    used = dialog.styles.gutter.height + _OUTSIDE_ROWS
    for child in dialog.children:
        margin = child.styles.margin
        if child is body:
            used += margin.top + margin.bottom
        elif child.display:
            used += child.outer_size.height + margin.top + margin.bottom
    body.styles.max_height = max(_MIN_BODY_ROWS, screen.size.height - used)


def choice_button(
    key: str, label: str, choice_id: str, variant: ButtonVariant = "default"
) -> Button:
    """One row of the choices: the key first, so a label cut at a narrow width keeps it."""
    return Button(
        Content.assemble((f" {key} ", "bold"), " ", label),
        id=choice_id,
        variant=variant,
        compact=True,
    )


def _preview_text(preview: PermissionPreview) -> Content:
    """A diff coloured by line (untrusted text: never markup); a new file as it will be; the
    arguments an MCP tool gets; the refusal the tool would answer with."""
    if preview.kind == "new-file":
        head = Content.styled(f"new file {preview.path}\n", "bold $success")
        return head + Content(preview.text)
    if preview.kind == "arguments":
        return Content.styled("arguments\n", "bold") + Content(preview.text)
    if preview.kind == "refusal":
        head = Content.styled("The tool will refuse this call as it stands:\n", "bold $error")
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


class MemoryTargetDialog(AnswersByKey, ModalScreen[MemoryScope | None]):
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
