"""The memory browser: every memory entry by scope, a preview, filter, delete and edit (M3).

The list is a virtual `RowList` (only the visible rows are rendered: 10,000 entries open as fast
as 30); the list has the focus on open, so the keys the footer shows act at once, and `/` or any
other letter typed goes to the filter (UX7); stale references are
marked after a second, slower pass over the project (MX6); `u` opens the extraction runs (MX7),
`i` the review inbox (MX8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import Worker

from wave_tui.session.types import CheckError, ConsolidationPlan, EntryError, MemoryEntry
from wave_tui.tui.editor import open_in_editor
from wave_tui.tui.format import age_label, one_line
from wave_tui.tui.memory_view import (
    GROUP_KEY_PREFIX,
    SCOPE_LABELS,
    delete_consequence,
    entry_location,
    flag_label,
    grouped,
    matches,
    missing_note,
    preview_body,
    stale_reminder,
    use_note,
)
from wave_tui.tui.screens.confirm_action import ConfirmAction
from wave_tui.tui.screens.dialogs import ConfirmDelete
from wave_tui.tui.screens.memory_runs import InboxScreen, RunsScreen
from wave_tui.tui.widgets.footer import Footer
from wave_tui.tui.widgets.row_list import Column, LazyRows, ListRow, RowList

if TYPE_CHECKING:
    from wave_tui.tui.app import WaveApp

TITLE_WIDTH = 24
COLUMNS = (
    Column("title", "Title", TITLE_WIDTH, flex=True),
    Column("type", "Type", 10, optional=True),
    # Scope (project, user, auto, rule) says where an entry lives: Type gives way first.
    Column("scope", "Scope", 7, optional=True, keep=1),
    Column("age", "Age", 5),
    Column("flag", "", 8),
)
# Keys of the list that act; any other printable key typed in the list goes to the filter.
LIST_KEYS = frozenset("deruic")
# Their actions: shown in the footer only while the list has the focus (in the filter, the
# letters are typed).
LIST_ACTIONS = frozenset(
    {"delete_memory", "edit_memory", "reload", "show_runs", "show_inbox", "consolidate"}
)
RULE_STATUS = {
    "always": ("active: every turn", "bold $success"),
    "conditional": ("active when a matching file is in context", "bold $success"),
    "inactive": ("inactive", "bold $error"),
}


class MemoryScreen(Screen[None]):
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="filter-memory"),
        Binding("d,delete", "delete_memory", "Delete", id="delete-memory"),
        Binding("e", "edit_memory", "Edit", id="edit-memory"),
        Binding("r", "reload", "Reload", id="reload-memory"),
        Binding("u", "show_runs", "Runs", id="show-extraction-runs"),
        Binding("i", "show_inbox", "Inbox", id="show-memory-inbox"),
        Binding("c", "consolidate", "Consolidate", id="consolidate-memory"),
        Binding("escape", "focus_table", "List", id="focus-memory-list", show=False),
    ]

    def __init__(self) -> None:
        super().__init__(id="memory")
        self.entries: list[MemoryEntry] = []
        # Set when another screen covers this one (or its mode is left): shown again, it reloads.
        # Not a count of resumes: Textual sends a new mode's screen two ScreenResume events on
        # its first showing (each was a full catalog load), and that showing loads in on_mount.
        self._hidden = False
        self._by_id: dict[str, MemoryEntry] = {}
        self._shown: str | None = None
        self._refs_checked = False
        self._parts: tuple[Static, Static, Static] | None = None  # stale, missing, body
        self._provenance: Static | None = None  # who wrote the entry shown (MR5)

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="Type to filter: words of the title or content, or “stale” (↓ to the list)",
            id="memory-filter",
        )
        with Horizontal(id="memory-body"):
            yield RowList(COLUMNS, id="memory-table")
            with Vertical(id="memory-preview"):
                yield Static("", id="preview-meta")  # the rest comes with the first entry shown
        yield Static("", id="memory-summary")
        yield Footer()

    def _preview_parts(self) -> tuple[Static, Static, Static]:
        """The stale and missing notes and the body, mounted when the first entry is shown: an
        empty browser opens without them (a quarter of its opening cost)."""
        if self._parts is None:
            stale = Static("", markup=False, id="preview-stale")
            missing = Static("", markup=False, id="preview-missing")
            stale.display = missing.display = False
            # Plain text, as written: a Markdown widget costs a stylesheet re-parse on open
            # and would hide what the file really holds.
            body = Static("", markup=False, id="preview-body")
            scroll = VerticalScroll(body, id="preview-scroll")
            self._provenance = Static("", markup=False, id="preview-provenance")
            self._provenance.display = False
            preview = self.query_one("#memory-preview", Vertical)
            preview.mount(self._provenance, stale, missing, scroll)
            self._parts = (stale, missing, body)
        return self._parts

    def on_mount(self) -> None:
        # A screen built ahead of F2 (`WaveApp._prepare_memory_screen`) may be mounted as the app
        # ends, its widgets never composed: nothing to focus then.
        for table in self.query("#memory-table").results(RowList):
            table.focus()
        if self.is_current:
            self.action_reload()
        else:  # built ahead of F2: it loads when first shown
            self._hidden = True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in LIST_ACTIONS:
            return self.focused is not self.query_one("#memory-filter", Input)
        return True

    def on_screen_suspend(self) -> None:
        self._hidden = True

    # req: UX7
    def on_screen_resume(self) -> None:
        """Back on the browser: files edited elsewhere since (an editor, another agent) show."""
        if self._hidden:
            self._hidden = False
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
        session = self.wave.session
        self.show_entries(await session.memory.entries())
        # The reference check reads project files: it follows the list, it does not delay it.
        checked = await session.memory.with_missing_refs(self.entries)
        self._refs_checked = True
        if checked != self.entries:  # usually nothing cites what is gone: no second fill
            self.show_entries(checked)

    def show_entries(self, entries: list[MemoryEntry]) -> None:
        self.entries = entries
        self._by_id = {entry.id: entry for entry in entries}
        self._fill_table()

    # req: U3
    def _fill_table(self) -> None:
        table = self.query_one("#memory-table", RowList)
        needle = self.query_one("#memory-filter", Input).value
        filtered = (
            self.entries if not needle.strip() else [e for e in self.entries if matches(e, needle)]
        )
        # One slot per row: a heading's text, or the entry whose row is made when it is painted.
        slots: list[str | MemoryEntry] = []
        keys: list[str] = []
        for scope, items in grouped(filtered):
            slots.append(f"{SCOPE_LABELS[scope]} ({len(items)})")
            keys.append(GROUP_KEY_PREFIX + scope)
            slots += items
            keys += [entry.id for entry in items]

        def make(index: int) -> ListRow:
            slot = slots[index]
            if isinstance(slot, str):
                return ListRow(keys[index], (slot,), True)
            return _entry_row(slot)

        table.set_rows(LazyRows(len(slots), make), keep=self._shown, keys=keys)
        if not slots:
            self._preview(None)
        stale = sum(1 for e in self.entries if e.stale or e.missing_refs)
        total = len(self.entries)
        noun = "entry" if total == 1 else "entries"
        summary = f"{len(filtered)} of {total} {noun}" if needle.strip() else f"{total} {noun}"
        self.query_one("#memory-summary", Static).update(
            Content.assemble(
                summary,
                (f"  ·  {stale} stale", "$warning") if stale else "",
                (f"  ·  {self._writes_label()}", "$text-muted"),
            )
        )

    # req: MR1
    def _writes_label(self) -> str:
        """The `autoMemoryWrites` mode in force, as `wave memory mode` names it."""
        settings = self.wave.session.settings.current()
        if not settings.auto_memory_enabled:
            return "auto memory off"
        return f"memory writes: {settings.auto_memory_writes}"

    # -- selection and preview -------------------------------------------------------------------
    def selected(self) -> MemoryEntry | None:
        return self._by_id.get(self.query_one("#memory-table", RowList).cursor_key or "")

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        self._preview(self._by_id.get(event.key or ""))

    def _preview(self, entry: MemoryEntry | None) -> None:
        self._shown = entry.id if entry else None
        meta = self.query_one("#preview-meta", Static)
        if entry is None:
            meta.update(Content.styled("Select a memory to preview it.", "$text-muted"))
            if self._parts is not None:
                stale, missing, body = self._parts
                stale.display = missing.display = False
                body.update("")
            return
        stale, missing, body = self._preview_parts()
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
        elif entry.status is not None:  # a path-scoped memory (its index line always loads)
            patterns = (entry.reason or "").split(": ", 1)[-1]
            parts += ["\n", ("loads when a matching file is read", "bold $success")]
            parts += ["\n", (patterns, "$text-muted")]
        use = use_note(entry)
        if use:
            parts += ["\n", (use, "bold $warning" if entry.unused else "$text-muted")]
        meta.update(Content.assemble(*parts))
        reminder = stale_reminder(entry)
        stale.display = reminder is not None
        stale.update(reminder or "")
        note = missing_note(entry)
        missing.display = note is not None
        missing.update(note or "")
        body.update(preview_body(entry))

        # The work, not a coroutine made now: a worker cancelled by the next highlight before it
        # started would leave that coroutine never awaited.
        async def provenance() -> None:
            await self._show_provenance(entry)

        # Textual's signature cannot tell an async callable from a sync one returning a value.
        self.run_worker(
            provenance,  # type: ignore[arg-type]
            group="provenance",
            exclusive=True,
            exit_on_error=False,
        )

    # req: MR5
    async def _show_provenance(self, entry: MemoryEntry) -> None:
        """Who wrote the entry, its citations as they check now and its loads: read off the
        UI thread, shown under the heading once known."""
        lines = await self.wave.session.memory.provenance_lines(entry)
        if self._provenance is None or self._shown != entry.id:
            return
        self._provenance.update("\n".join(lines))
        self._provenance.display = True

    def _activation(self, entry: MemoryEntry) -> str | None:
        """For a conditional rule loaded in this session: the file and pattern that loaded it."""
        session = self.wave.session
        # A session without memory injection knows nothing about activations.
        if entry.status != "conditional" or not session.memory.knows_rule_activations():
            return None
        hit = session.memory.rule_activation(entry.id.split(":", 2)[-1])
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
        self.query_one("#memory-table", RowList).focus()

    def on_key(self, event: events.Key) -> None:
        """Down / Enter leave the filter for the list; typing in the list goes to the filter."""
        filter_input = self.query_one("#memory-filter", Input)
        if self.focused is filter_input and event.key == "down":
            event.stop()
            self.action_focus_table()
        elif (
            isinstance(self.focused, RowList)
            and event.is_printable
            and event.character
            and event.character not in LIST_KEYS
            and event.character != "/"
        ):
            event.stop()
            filter_input.focus()
            filter_input.insert_text_at_cursor(event.character)

    def action_show_runs(self) -> None:
        self.app.push_screen(RunsScreen())

    def action_show_inbox(self) -> None:
        self.app.push_screen(InboxScreen())

    # req: MM5
    def action_consolidate(self) -> None:
        self.run_worker(
            self._consolidate(), group="consolidate", exclusive=True, exit_on_error=False
        )

    async def _consolidate(self) -> None:
        """The plan first (asked before anything changes); applied, its run opens with the diff
        (`r` reverts it), or the inbox in review mode."""
        memory = self.wave.session.memory
        try:
            planned = await memory.consolidation_plan()
        except CheckError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        if not planned.steps:
            self.notify("Nothing to consolidate.", markup=False)
            return
        changes = "\n".join(f"• {line}" for line in planned.summary())
        confirm = ConfirmAction("Consolidate memory?", changes, "Apply (y)")
        if await self.app.push_screen_wait(confirm):
            await self._apply_consolidation(planned)

    async def _apply_consolidation(self, planned: ConsolidationPlan) -> None:
        done = await self.wave.session.memory.consolidate(planned)
        if done.run is not None:
            self.notify(f"Consolidated: {len(done.plan.steps)} change(s); r reverts", markup=False)
            self.app.push_screen(RunsScreen())
        else:
            self.notify(f"{len(done.pending)} change(s) waiting for review", markup=False)
            self.app.push_screen(InboxScreen())

    # req: UX7
    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "memory-filter":
            if event.value.startswith("/"):
                # The `/` habit from other browsers: the filter already has the focus.
                event.input.value = event.value.lstrip("/")
                return
            self._fill_table()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "memory-filter":
            self.action_focus_table()

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

        consequence = delete_consequence(entry)
        if consequence is None:
            self.notify(
                f"{entry.path.name}: free text is not deleted on its own; press e to edit the file.",
                severity="warning",
                markup=False,
            )
            return
        location = entry_location(entry, self.wave.paths)
        self.app.push_screen(ConfirmDelete(entry.title, location, consequence), confirmed)

    async def _delete(self, entry: MemoryEntry) -> None:
        try:
            await self.wave.session.memory.delete(entry)
        except EntryError as exc:
            # Changed on disk since it was listed: say so and show what is there now.
            self.notify(f"Not deleted: {exc}", severity="error", markup=False)
        else:
            self.notify(f"Deleted “{one_line(entry.title, 50)}”", markup=False)
        await self._load()

    # req: UX5
    def action_edit_memory(self) -> None:
        entry = self.selected()
        if entry is None:
            self.app.bell()
            return
        open_in_editor(self.app, entry.path)
        self.action_reload()


def _entry_row(entry: MemoryEntry) -> ListRow:
    return ListRow(
        entry.id,
        (
            one_line(entry.title, 200),
            entry.type or entry.status or "—",
            entry.scope,
            age_label(entry.age_days),
            flag_label(entry),
        ),
        flag_column="flag",
    )


def _age_words(days: int) -> str:
    if days == 0:
        return "updated today"
    if days == 1:
        return "updated yesterday"
    return f"{days} days old"
