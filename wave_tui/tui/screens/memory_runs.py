"""Extraction runs with their diffs and a one-key revert (MX7); the review inbox (MX8)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static
from textual.worker import Worker

from wave_tui.session.types import InboxError, PendingWrite, Run, RunError
from wave_tui.tui.format import show_path
from wave_tui.tui.widgets.footer import Footer
from wave_tui.tui.widgets.row_list import Column, ListRow, RowList

if TYPE_CHECKING:
    from wave_tui.tui.app import WaveApp

RUN_COLUMNS = (
    Column("when", "When", 16),
    Column("turn", "Turn", 4),
    Column("files", "Files", 10, flex=True),
    Column("state", "", 9),
)
INBOX_COLUMNS = (Column("file", "File", 20, flex=True), Column("when", "Proposed", 16))


def when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(stamp))


def diff_content(diff: str) -> Content:
    """A unified diff with added / removed lines in the theme's colours (text kept verbatim)."""
    if not diff:
        return Content.styled("No changes.", "$text-muted")
    parts: list[str | tuple[str, str]] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            parts.append((line, "bold"))
        elif line.startswith("+"):
            parts.append((line, "$success"))
        elif line.startswith("-"):
            parts.append((line, "$error"))
        elif line.startswith("@@"):
            parts.append((line, "$accent"))
        else:
            parts.append(line)
    return Content.assemble(*parts)


class ConfirmAction(ModalScreen[bool]):
    """Yes / no before a change to memory files (revert a run)."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm-action"),
        Binding("n,escape", "answer(False)", "No", id="cancel-action"),
    ]

    def __init__(self, title: str, detail: str) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -danger"):
            yield Static(self.title_text, markup=False, classes="dialog-title")
            yield Static(self.detail, markup=False, classes="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Yes (y)", variant="error", id="yes")
                yield Button("No (n)", id="no")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class _ListWithDiff(Screen[None]):
    """A list on the left, the selected item's diff on the right."""

    def __init__(self, columns: tuple[Column, ...], screen_id: str) -> None:
        super().__init__(id=screen_id)
        self._columns = columns

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="runs-body"):
            yield RowList(self._columns, id="runs-list")
            with VerticalScroll(classes="runs-diff"):
                yield Static("", id="runs-meta")
                yield Static("", id="runs-diff")
        yield Static("", id="runs-summary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(RowList).focus()
        self.action_reload()

    def action_reload(self) -> None:
        self.run_worker(self._load(), group="memory-runs", exclusive=True, exit_on_error=False)

    async def _load(self) -> None:
        raise NotImplementedError

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.wave.report_worker_failure(event)

    def action_back(self) -> None:
        self.dismiss()

    def show(self, meta: Content, diff: Content) -> None:
        self.query_one("#runs-meta", Static).update(meta)
        self.query_one("#runs-diff", Static).update(diff)

    def summary(self, text: str) -> None:
        self.query_one("#runs-summary", Static).update(text)


class RunsScreen(_ListWithDiff):
    """Every extraction run: when, which turn, the files written and the diff; `r` reverts."""

    BINDINGS = [
        Binding("r", "revert", "Revert run", id="revert-run"),
        Binding("escape,u", "back", "Back", id="close-runs"),
    ]

    def __init__(self) -> None:
        super().__init__(RUN_COLUMNS, "memory-runs")
        self.runs: dict[str, Run] = {}

    async def _load(self) -> None:
        runs = await self.wave.session.memory.runs()
        self.runs = {run.id: run for run in runs}
        rows = [
            ListRow(
                run.id,
                (
                    when(run.started_at),
                    "—" if run.turn is None else str(run.turn),
                    ", ".join(_short(f) for f in run.files) or "(nothing written)",
                    _state(run),
                ),
                flag_column="state",
            )
            for run in runs
        ]
        table = self.query_one(RowList)
        table.set_rows(rows, keep=table.cursor_key)
        self.summary(f"{len(runs)} runs  ·  r reverts the selected run")
        if not rows:
            self.show(Content.styled("No extraction runs recorded yet.", "$text-muted"), Content())

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        run = self.runs.get(event.key or "")
        if run is None:
            return
        parts: list[str | tuple[str, str]] = [
            (f"{run.kind} run {run.id}", "bold"),
            "\n",
            (
                f"{when(run.started_at)}  ·  turn {run.turn if run.turn is not None else '—'}",
                "$text-muted",
            ),
        ]
        for path in run.files:
            parts += ["\n", (show_path(path, self.wave.paths), "$text-muted")]
        if run.error:
            parts += ["\n", (f"error: {run.error}", "$error")]
        if run.reverted_by:
            parts += ["\n", (f"reverted by {run.reverted_by}", "$warning")]
        if run.reverts:
            parts += ["\n", (f"reverts {run.reverts}", "$warning")]
        self.show(Content.assemble(*parts, "\n"), diff_content(run.diff()))

    def action_revert(self) -> None:
        run = self.runs.get(self.query_one(RowList).cursor_key or "")
        if run is None or not run.changes:
            self.app.bell()
            return
        if run.reverted_by:
            self.notify(f"Already reverted by {run.reverted_by}.", severity="warning", markup=False)
            return
        files = ", ".join(_short(f) for f in run.files)

        def confirmed(ok: bool | None) -> None:
            if ok:
                self.run_worker(self._revert(run.id), group="memory-revert", exit_on_error=False)

        self.app.push_screen(
            ConfirmAction(
                f"Revert the run of {when(run.started_at)}?",
                f"Restores what {files} held before it (MEMORY.md pointers included); "
                "the revert is recorded as a run of its own.",
            ),
            confirmed,
        )

    async def _revert(self, run_id: str) -> None:
        try:
            result = await self.wave.session.memory.revert(run_id)
        except RunError as exc:
            self.notify(f"Not reverted: {exc}", severity="error", markup=False)
        else:
            restored = ", ".join(p.name for p in result.restored) or "nothing"
            skipped = f"; left alone: {', '.join(result.skipped)}" if result.skipped else ""
            self.notify(f"Reverted: {restored}{skipped}", markup=False)
        await self._load()


class InboxScreen(_ListWithDiff):
    """Fork writes waiting for review: `a` accepts one file, `x` rejects it."""

    BINDINGS = [
        Binding("a", "accept", "Accept", id="accept-pending"),
        Binding("x", "reject", "Reject", id="reject-pending"),
        Binding("escape,i", "back", "Back", id="close-inbox"),
    ]

    def __init__(self) -> None:
        super().__init__(INBOX_COLUMNS, "memory-inbox")
        self.items: dict[str, PendingWrite] = {}

    async def _load(self) -> None:
        items = await self.wave.session.memory.inbox()
        self.items = {item.id: item for item in items}
        rows = [ListRow(i.id, (_shown(i), when(i.created_at))) for i in items]
        table = self.query_one(RowList)
        table.set_rows(rows, keep=table.cursor_key)
        self.summary(f"{len(items)} pending  ·  a accepts, x rejects the selected file")
        if not rows:
            self.show(
                Content.styled(
                    "Nothing waiting for review. With autoMemoryReview on, the extraction's "
                    "writes wait here until you accept them.",
                    "$text-muted",
                ),
                Content(),
            )

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        item = self.items.get(event.key or "")
        if item is None:
            return
        state = "new file" if item.before is None else "changes an existing file"
        if item.scope == "team":  # accepting writes the repository's file, for the user to commit
            state += "  ·  team memory (.wave/memory/): commit it after accepting"
        meta = Content.assemble(
            (_shown(item), "bold"), "\n", (f"{when(item.created_at)}  ·  {state}", "$text-muted")
        )
        self.show(meta + "\n", diff_content(item.diff()))

    def action_accept(self) -> None:
        self._decide(accept=True)

    def action_reject(self) -> None:
        self._decide(accept=False)

    def _decide(self, *, accept: bool) -> None:
        item = self.items.get(self.query_one(RowList).cursor_key or "")
        if item is None:
            self.app.bell()
            return
        self.run_worker(self._apply(item, accept), group="memory-inbox", exit_on_error=False)

    async def _apply(self, item: PendingWrite, accept: bool) -> None:
        session = self.wave.session
        try:
            if accept:
                await session.memory.accept(item.id)
            else:
                await session.memory.reject(item.id)
        except InboxError as exc:
            self.notify(str(exc), severity="error", markup=False)
        else:
            verb = "Accepted" if accept else "Rejected"
            self.notify(f"{verb}: {item.relative}", markup=False)
        await self._load()


def _short(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _state(run: Run) -> str:
    if run.reverted_by:
        return "reverted"
    if run.kind == "revert":
        return "revert"
    return "error" if run.error else ""


def _shown(item: PendingWrite) -> str:
    """The file a proposal writes; a team proposal is marked `team`."""
    return f"team: {item.relative}" if item.scope == "team" else item.relative
