"""`/tasks` in the app: the task list, background work and scheduled jobs as `/tasks` prints
them, where `d` stops the highlighted scheduled job (a `/loop` or the model's CronCreate)."""

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


# req: FH4
class TasksScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("d,delete", "stop_job", "Stop job", id="stop-job"),
        Binding("escape,q", "close", "Close", id="close-tasks"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Static(Content("Tasks"), classes="dialog-title")
            yield OptionList(id="task-lines")
            yield Static(
                Content("d stops the highlighted scheduled job · Esc closes"),
                classes="dialog-detail",
            )
        yield Footer()

    async def on_mount(self) -> None:
        await self._show()
        self.query_one("#task-lines", OptionList).focus()

    async def _show(self) -> None:
        result = await self.wave.session.input.run_command("/tasks")
        text = str(getattr(result, "text", ""))  # `/tasks` answers with its output
        jobs = self.wave.session.scheduled_job_ids()
        lines = self.query_one("#task-lines", OptionList)
        lines.clear_options()
        first_job: int | None = None
        for n, line in enumerate(text.splitlines()):
            job = next((j for j in jobs if line.strip().startswith(f"{j} [")), None)
            if job is None:
                lines.add_option(Option(Content(line), disabled=True))
                continue
            lines.add_option(Option(Content(line), id=job))
            first_job = n if first_job is None else first_job
        lines.highlighted = first_job

    async def action_stop_job(self) -> None:
        lines = self.query_one("#task-lines", OptionList)
        if lines.highlighted is None:
            return
        job = lines.get_option_at_index(lines.highlighted).id
        stopped = self.wave.session.stop_scheduled_job(job) if job else None
        if job and stopped is not None:
            self.notify(f"Stopped {job}: {stopped}", markup=False)
            await self._show()

    def action_close(self) -> None:
        self.dismiss(None)
