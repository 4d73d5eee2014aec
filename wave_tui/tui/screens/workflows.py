"""`/workflows` in the app: the session's workflow runs, newest first, following them live
(phases advancing, agents finishing); Enter shows a run's phases with their agents and results,
`s` stops a running one after a one-line confirmation."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker

from wave_tui.tui.widgets.footer import Footer
from wave_tui.tui.widgets.row_list import Column, ListRow, RowList

if TYPE_CHECKING:
    from wave_tui.session.facade import WorkflowRunInfo
    from wave_tui.tui.app import WaveApp

# Runs change on the session's loop without telling the app: a look this often is cheap (a
# snapshot of a few records), and the screen repaints only when what it shows changed.
REFRESH_S = 0.25
COLUMNS = (
    Column("name", "Workflow", 12, flex=True),
    Column("id", "Run", 9),
    Column("status", "Status", 9),
    Column("phase", "Phase", 12),
    Column("agents", "Run/Done", 8),
    Column("tokens", "Tokens", 8, optional=True),
    Column("elapsed", "Time", 6),
)
EMPTY = "No workflow runs yet: ask wave to run a workflow (e.g. deep-research)."
KEYS = "Enter: phases, agents, results · s: stop · Esc: close"
DETAIL_KEYS = "↑↓ scroll · s: stop · Esc: back to the list"
STATUS_STYLE = {"running": "$accent", "completed": "$success", "failed": "$error"}


def elapsed(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def run_row(run: WorkflowRunInfo) -> ListRow:
    return ListRow(
        run.id,
        (
            run.name,
            run.id,
            run.status,
            run.phase or "—",
            f"{run.agents_running}/{run.agents_done}",
            f"{run.tokens:,}",
            elapsed(run.elapsed_s),
        ),
        flag_column="status" if run.status in ("failed", "stopped") else None,
    )


def run_detail(run: WorkflowRunInfo) -> Content:
    """The run's phases, each agent with its status, tokens and result, then how it ended."""
    mode = " · background" if run.background else ""
    parts: list[str | tuple[str, str]] = [
        (f"{run.name} {run.id}", "bold"),
        "  ",
        (run.status, STATUS_STYLE.get(run.status, "$warning")),
        (
            f"\n{elapsed(run.elapsed_s)} · {run.agents_running + run.agents_done} agents · "
            f"{run.tokens:,} tokens{mode}",
            "$text-muted",
        ),
    ]
    if not run.phases:
        parts.append(("\n\nNo phase started yet.", "$text-muted"))
    for phase in run.phases:
        live = run.status == "running" and phase is run.phases[-1]
        parts += ["\n\n", (f"Phase {phase.name}", "bold")]
        if live:
            parts.append((" (running)", "$accent"))
        for agent in phase.agents:
            parts += [
                "\n  ",
                (f"[{agent.status}]", STATUS_STYLE.get(agent.status, "$warning")),
                f" {agent.description} ",
                (f"({agent.subagent_type}, {agent.tokens:,} tokens)", "$text-muted"),
            ]
            if agent.result:
                parts += ["\n", _indented(agent.result, 4)]
    if run.error:
        parts += ["\n\n", (f"Error: {run.error}", "$error")]
    if run.result:
        parts += ["\n\n", ("Result", "bold"), "\n", _indented(run.result, 2)]
    return Content.assemble(*parts)


def _runs(count: int) -> str:
    return "1 run" if count == 1 else f"{count} runs"


def _indented(text: str, by: int) -> str:
    pad = " " * by
    return "\n".join(pad + line for line in text.strip().splitlines())


# req: WK2
class WorkflowsScreen(Screen[None]):
    BINDINGS = [
        Binding("enter", "details", "Details", id="workflow-details"),
        Binding("s", "ask_stop", "Stop run", id="stop-workflow"),
        Binding("y", "confirm_stop", "Yes, stop it", show=False),
        Binding("n", "cancel_stop", "Keep it", show=False),
        Binding("escape,q", "back", "Back", id="close-workflows"),
    ]

    def __init__(self) -> None:
        super().__init__(id="workflows")
        self.views: list[WorkflowRunInfo] = []
        self.stopping: str | None = None  # the run whose stop waits for a `y`
        self._timer: Timer | None = None
        self._painted = False

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static(Content("Workflow runs"), id="workflows-title")
        yield RowList(COLUMNS, id="workflow-runs")
        yield Static(Content.styled(EMPTY, "$text-muted"), id="workflows-empty")
        with VerticalScroll(id="workflow-detail"):
            yield Static("", id="workflow-detail-text")
        yield Static("", id="workflows-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_runs()
        self.query_one(RowList).focus()
        self._timer = self.set_interval(REFRESH_S, self.refresh_runs)

    def on_unmount(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    @property
    def detail_shown(self) -> bool:
        return self.has_class("-detail")

    def selected(self) -> WorkflowRunInfo | None:
        key = self.query_one(RowList).cursor_key
        return next((v for v in self.views if v.id == key), None)

    def refresh_runs(self) -> None:
        """Show the runs as they are now (nothing repaints when nothing changed)."""
        views = self.wave.session.workflows.runs()
        if self._painted and views == self.views:
            return
        self.views, self._painted = views, True
        table = self.query_one(RowList)
        table.set_rows([run_row(v) for v in views], keep=table.cursor_key)
        table.display = bool(views) and not self.detail_shown
        self.query_one("#workflows-empty").display = not views
        self._show_detail()
        self._show_hint()

    def _show_detail(self) -> None:
        run = self.selected()
        text = run_detail(run) if run is not None else Content()
        self.query_one("#workflow-detail-text", Static).update(text)

    def _show_hint(self) -> None:
        hint = self.query_one("#workflows-hint", Static)
        run = next((v for v in self.views if v.id == self.stopping), None)
        if run is not None:
            hint.update(
                Content.styled(
                    f"Stop {run.name} {run.id} and its agents? y stops it · n keeps it running",
                    "bold $warning",
                )
            )
            return
        if not self.views:
            hint.update(Content("Esc: close"))
            return
        counts = f"{_runs(len(self.views))}, {self._live_count()} running · "
        hint.update(Content(counts + (DETAIL_KEYS if self.detail_shown else KEYS)))

    def _live_count(self) -> int:
        return sum(1 for v in self.views if v.status == "running")

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        if self.stopping is not None and event.key != self.stopping:
            self.stopping = None  # the selection moved on: that question is gone
        self._show_detail()
        self._show_hint()

    def action_details(self) -> None:
        if self.selected() is None:
            self.app.bell()
            return
        self.add_class("-detail")
        self.query_one(RowList).display = False
        self._show_detail()
        self._show_hint()
        self.query_one("#workflow-detail", VerticalScroll).focus()

    def action_ask_stop(self) -> None:
        run = self.selected()
        if run is None or run.status != "running":
            self.notify(
                "Only a running run can be stopped." if run else "No run selected.",
                severity="warning",
                markup=False,
            )
            return
        self.stopping = run.id
        self._show_hint()

    def action_confirm_stop(self) -> None:
        run_id, self.stopping = self.stopping, None
        if run_id is None:
            return
        self.run_worker(self._stop(run_id), group="workflow-stop", exit_on_error=False)

    async def _stop(self, run_id: str) -> None:
        stopped = await self.wave.session.workflows.stop(run_id)
        if stopped is not None:
            self.notify(f"{stopped.name} {stopped.id}: {stopped.status}", markup=False)
        self.refresh_runs()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.wave.report_worker_failure(event)

    def action_cancel_stop(self) -> None:
        self.stopping = None
        self._show_hint()

    def action_back(self) -> None:
        if self.stopping is not None:
            self.action_cancel_stop()
        elif self.detail_shown:
            self.remove_class("-detail")
            table = self.query_one(RowList)
            table.display = bool(self.views)
            table.focus()
            self._show_hint()
        else:
            self.dismiss(None)
