"""The memory browser: every memory entry by scope, a preview, filter, delete and edit (M3)."""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Markdown, Static
from textual.worker import Worker

from wave_tui.agent.session import EntryError, MemoryEntry
from wave_tui.tui.format import age_label, one_line
from wave_tui.tui.memory_view import (
    GROUP_KEY_PREFIX,
    SCOPE_LABELS,
    entry_location,
    grouped,
    matches,
    preview_body,
    stale_reminder,
)
from wave_tui.tui.screens.dialogs import ConfirmDelete

if TYPE_CHECKING:
    from wave_tui.tui.app import WaveApp

TITLE_WIDTH = 24
RULE_STATUS = {
    "always": ("active: every turn", "bold $success"),
    "conditional": ("active when a matching file is in context", "bold $success"),
    "inactive": ("inactive", "bold $error"),
}


class MemoryScreen(Screen[None]):
    CSS_PATH = "memory.tcss"
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="filter-memory"),
        Binding("d,delete", "delete_memory", "Delete", id="delete-memory"),
        Binding("e", "edit_memory", "Edit", id="edit-memory"),
        Binding("r", "reload", "Reload", id="reload-memory"),
        Binding("escape", "focus_table", "List", id="focus-memory-list", show=False),
    ]

    def __init__(self) -> None:
        super().__init__(id="memory")
        self.entries: list[MemoryEntry] = []
        self._by_id: dict[str, MemoryEntry] = {}
        self._shown: str | None = None

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="Filter memories (type to narrow, Enter to go to the list)",
            id="memory-filter",
        )
        with Horizontal(id="memory-body"):
            yield DataTable(cursor_type="row", id="memory-table")
            with Vertical(id="memory-preview"):
                yield Static("", id="preview-meta")
                yield Static("", markup=False, id="preview-stale")
                with VerticalScroll(id="preview-scroll"):
                    yield Markdown("", id="preview-body")
        yield Static("", id="memory-summary")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#memory-table", DataTable)
        table.add_column("Title", key="title", width=TITLE_WIDTH)
        table.add_column("Type", key="type")
        table.add_column("Scope", key="scope")
        table.add_column("Age", key="age")
        table.add_column("", key="stale")
        table.focus()
        self.query_one("#preview-stale").display = False
        self.action_reload()

    # -- loading -------------------------------------------------------------------------------
    def action_reload(self) -> None:
        self.run_worker(
            self._load(),
            group="memory-catalog",
            exclusive=True,
            exit_on_error=False,
            name="loading the memory catalog",
        )

    async def _load(self) -> None:
        self.show_entries(await self.wave.session.list_memories())

    def show_entries(self, entries: list[MemoryEntry]) -> None:
        self.entries = entries
        self._by_id = {entry.id: entry for entry in entries}
        self._fill_table()

    # req: U3
    def _fill_table(self) -> None:
        table = self.query_one("#memory-table", DataTable)
        needle = self.query_one("#memory-filter", Input).value
        previous = self._shown
        keep = table.cursor_row if previous is not None else 0
        table.clear()
        stale_style = self.app.theme_variables.get("warning", "yellow")
        rows: list[tuple[object, ...]] = []
        keys: list[str] = []
        shown = 0
        for scope, items in grouped(e for e in self.entries if matches(e, needle)):
            keys.append(GROUP_KEY_PREFIX + scope)
            rows.append(
                (Text(f"{SCOPE_LABELS[scope]} ({len(items)})", style="bold"), "", "", "", "")
            )
            for entry in items:
                shown += 1
                keys.append(entry.id)
                rows.append(
                    (
                        Text(one_line(entry.title, TITLE_WIDTH)),
                        Text(entry.type or entry.status or "—"),
                        entry.scope,
                        age_label(entry.age_days),
                        Text("stale", style=f"bold {stale_style}") if entry.stale else "",
                    )
                )
        for key, row in zip(keys, rows, strict=True):
            table.add_row(*row, key=key)
        if previous is not None and previous in keys:
            table.move_cursor(row=keys.index(previous), animate=False)
        elif keys:
            first = next((i for i, k in enumerate(keys) if not k.startswith(GROUP_KEY_PREFIX)), 0)
            table.move_cursor(
                row=min(keep, len(keys) - 1) if keep and previous else first, animate=False
            )
        else:
            self._preview(None)
        stale = sum(1 for e in self.entries if e.stale)
        total = len(self.entries)
        summary = f"{shown} of {total} entries" if needle.strip() else f"{total} entries"
        self.query_one("#memory-summary", Static).update(
            Content.assemble(summary, (f"  ·  {stale} stale", "$warning") if stale else "")
        )

    # -- selection and preview -------------------------------------------------------------------
    def selected(self) -> MemoryEntry | None:
        table = self.query_one("#memory-table", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self._by_id.get(key or "")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._preview(self._by_id.get(event.row_key.value or ""))

    def _preview(self, entry: MemoryEntry | None) -> None:
        self._shown = entry.id if entry else None
        meta = self.query_one("#preview-meta", Static)
        stale = self.query_one("#preview-stale", Static)
        body = self.query_one("#preview-body", Markdown)
        if entry is None:
            meta.update(Content.styled("Select a memory to preview it.", "$text-muted"))
            stale.display = False
            body.update("")
            return
        parts: list[str | tuple[str, str]] = [
            (entry.title, "bold"),
            "\n",
            (entry_location(entry, self.wave.paths), "$text-muted"),
            "\n",
            (SCOPE_LABELS[entry.scope], "$text-muted"),
        ]
        if entry.type:
            parts += [("  ·  ", "$text-muted"), (entry.type, "$text-muted")]
        if entry.age_days is not None:
            parts += [("  ·  ", "$text-muted"), (_age_words(entry.age_days), "$text-muted")]
        if entry.scope == "rule":
            label, style = RULE_STATUS.get(entry.status or "", ("inactive", "bold $error"))
            reason = (entry.reason or "").split(": ", 1)[-1]
            parts += ["\n", (label, style), "\n", (reason, "$text-muted")]
            activation = self._activation(entry)
            if activation:
                parts += ["\n", (activation, "$success")]
        meta.update(Content.assemble(*parts))
        reminder = stale_reminder(entry)
        stale.display = reminder is not None
        stale.update(reminder or "")
        body.update(preview_body(entry))

    def _activation(self, entry: MemoryEntry) -> str | None:
        """For a conditional rule loaded in this session: the file and pattern that loaded it."""
        session = self.wave.session
        # A session without memory injection knows nothing about activations.
        if entry.status != "conditional" or not session.knows_rule_activations():
            return None
        hit = session.rule_activation(entry.id.split(":", 2)[-1])
        if hit is None:
            return "not loaded yet in this session"
        trigger, pattern = hit
        return f"loaded in this session: {trigger} matched {pattern}"

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.wave.report_worker_failure(event)

    # -- actions -------------------------------------------------------------------------------
    def action_focus_filter(self) -> None:
        self.query_one("#memory-filter", Input).focus()

    def action_focus_table(self) -> None:
        self.query_one("#memory-table", DataTable).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "memory-filter":
            self._fill_table()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "memory-filter":
            self.query_one("#memory-table", DataTable).focus()

    def action_delete_memory(self) -> None:
        entry = self.selected()
        if entry is None:
            self.app.bell()
            return

        def confirmed(ok: bool | None) -> None:
            if ok:
                self.run_worker(
                    self._delete(entry),
                    group="memory-delete",
                    exit_on_error=False,
                    name="deleting a memory",
                )

        location = entry_location(entry, self.wave.paths)
        self.app.push_screen(ConfirmDelete(entry.title, location), confirmed)

    async def _delete(self, entry: MemoryEntry) -> None:
        try:
            await self.wave.session.delete_memory(entry)
        except EntryError as exc:
            # Changed on disk since it was listed: say so and show what is there now.
            self.notify(f"Not deleted: {exc}", severity="error", markup=False)
        else:
            self.notify(f"Deleted “{one_line(entry.title, 50)}”", markup=False)
        await self._load()

    def action_edit_memory(self) -> None:
        entry = self.selected()
        if entry is None:
            self.app.bell()
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.notify("Set $EDITOR to open memories in your editor.", severity="warning")
            return
        try:
            with self.app.suspend():
                subprocess.run([*shlex.split(editor), str(entry.path)], check=False)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", severity="warning")
            return
        except OSError as exc:
            self.notify(f"Could not start {editor}: {exc}", severity="error", markup=False)
        self.action_reload()


def _age_words(days: int) -> str:
    if days == 0:
        return "updated today"
    if days == 1:
        return "updated yesterday"
    return f"{days} days old"
