"""An MCP server's form (MA3): one field per property of the requested schema, pre-filled with
the schema's defaults (SEP-1034); accept (Ctrl+S), decline, or cancel (Escape)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, Static

from wave_tui.agent.events import ElicitationAnswer
from wave_tui.tui.screens.dialogs import choice_button


def _choices(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) of an enum property (`enum` + `enumNames`, or `oneOf` with titles)."""
    if isinstance(spec.get("enum"), list):
        values = [str(v) for v in spec["enum"]]
        names = spec.get("enumNames")
        labels = [str(n) for n in names] if isinstance(names, list) else values
        return list(zip(labels, values, strict=False))
    options = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(options, list):
        return [
            (str(o.get("title", o["const"])), str(o["const"]))
            for o in options
            if isinstance(o, dict) and "const" in o
        ]
    return []


# req: MA3
class ElicitationDialog(ModalScreen[ElicitationAnswer]):
    BINDINGS = [
        Binding("ctrl+s", "accept", "Accept", id="elicit-accept"),
        Binding("ctrl+d", "decline", "Decline", id="elicit-decline"),
        Binding("escape", "cancel", "Cancel", id="elicit-cancel"),
    ]

    def __init__(self, server: str, message: str, schema: dict[str, Any]) -> None:
        super().__init__(classes="dialog-screen")
        self.server = server
        self.message = message
        properties = schema.get("properties")
        self.properties: dict[str, dict[str, Any]] = {
            name: spec
            for name, spec in (properties.items() if isinstance(properties, dict) else ())
            if isinstance(spec, dict)
        }

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog work-dialog"):
            title = Content.assemble("MCP server ", (self.server, "bold"), " asks")
            yield Static(title, classes="dialog-title")
            yield Static(Content(self.message), classes="dialog-detail")
            with VerticalScroll():
                for index, (name, spec) in enumerate(self.properties.items()):
                    yield from self._field(index, name, spec)
            yield Static("", id="elicit-note", classes="dialog-detail")
            with Horizontal(classes="dialog-choices"):
                yield choice_button("^S", "Accept", "accept", variant="primary")
                yield choice_button("^D", "Decline", "decline")
                yield choice_button("Esc", "Cancel", "cancel")

    def _field(self, index: int, name: str, spec: dict[str, Any]) -> ComposeResult:
        label = str(spec.get("title") or name)
        about = f" — {spec['description']}" if spec.get("description") else ""
        yield Static(Content(label + about))
        default = spec.get("default")
        choices = _choices(spec)
        field_id = f"field-{index}"
        if spec.get("type") == "boolean":
            yield Checkbox(label, value=bool(default), id=field_id)
        elif choices:
            value = str(default) if default is not None else Select.BLANK
            yield Select([(lb, v) for lb, v in choices], value=value, id=field_id)
        else:
            kind = spec.get("type")
            text = "" if default is None else str(default)
            if kind == "integer":
                yield Input(text, type="integer", id=field_id)
            elif kind == "number":
                yield Input(text, type="number", id=field_id)
            else:
                yield Input(text, id=field_id)

    def values(self) -> dict[str, Any]:
        """The filled fields, typed by the schema (an empty field is left out: its default, if
        any, is filled in by the mcp layer)."""
        found: dict[str, Any] = {}
        for index, (name, spec) in enumerate(self.properties.items()):
            widget = self.query_one(f"#field-{index}")
            if isinstance(widget, Checkbox):
                found[name] = widget.value
            elif isinstance(widget, Select):
                if widget.value is not Select.BLANK:
                    found[name] = widget.value
            elif isinstance(widget, Input) and widget.value.strip():
                raw = widget.value.strip()
                kind = spec.get("type")
                found[name] = (
                    int(raw) if kind == "integer" else float(raw) if kind == "number" else raw
                )
        return found

    def action_accept(self) -> None:
        try:
            content = self.values()
        except ValueError as exc:
            self.query_one("#elicit-note", Static).update(f"Not a number: {exc}")
            return
        self.dismiss(ElicitationAnswer("accept", content))

    def action_decline(self) -> None:
        self.dismiss(ElicitationAnswer("decline"))

    def action_cancel(self) -> None:
        self.dismiss(ElicitationAnswer("cancel"))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "accept":
            self.action_accept()
        elif event.button.id == "decline":
            self.action_decline()
        else:
            self.action_cancel()
