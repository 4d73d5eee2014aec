"""`/tasks` in the app: the task list, background work and scheduled jobs as `/tasks` prints
them, where `d` stops the highlighted scheduled job (a `/loop` or the model's CronCreate)."""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.widgets.option_list import Option

from wave_tui.tui.screens.list_dialog import ListDialog


# req: FH4
class TasksScreen(ListDialog):
    BINDINGS = [
        Binding("d,delete", "stop_job", "Stop job", id="stop-job"),
        Binding("escape,q", "close", "Close", id="close-tasks"),
    ]
    DIALOG_TITLE = "Tasks"
    LIST_ID = "task-lines"
    HINT = "d stops the highlighted scheduled job · Esc closes"

    async def show_rows(self) -> None:
        result = await self.wave.session.input.run_command("/tasks")
        text = str(getattr(result, "text", ""))  # `/tasks` answers with its output
        jobs = self.wave.session.scheduled_job_ids()
        lines = self.rows
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
        await self.act_on_highlighted(self._stop)

    def _stop(self, job: str) -> str | None:
        stopped = self.wave.session.stop_scheduled_job(job)
        return None if stopped is None else f"Stopped {job}: {stopped}"
