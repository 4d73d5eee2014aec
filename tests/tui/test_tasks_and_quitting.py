"""The user's own controls of the first hour: `d` in `/tasks` stops a `/loop`, and `/exit` and
`/quit` quit as Ctrl+Q does (Textual Pilot over a fully wired session)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from tests.model_server import ModelServer
from tests.tui.command_ui_helpers import extended_app, wait_for_screen
from tests.tui.conftest import server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.tui.screens.tasks import TasksScreen


@pytest.mark.req("FH4")
async def test_d_in_tasks_stops_the_highlighted_loop(
    model_server: ModelServer, project: Path
) -> None:
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(100, 30)) as pilot:
        for line in ("/loop 5m check the deploy", "/loop 1h tidy up"):
            await pilot.press(*line, "enter")
            await settle(pilot)
        assert len(app.session.scheduled_job_ids()) == 2
        await pilot.press(*"/tasks", "enter")
        screen = await wait_for_screen(pilot, TasksScreen)
        lines = screen.query_one("#task-lines", OptionList)
        await wait_until(pilot, lambda: lines.highlighted is not None)
        assert lines.highlighted is not None
        first = lines.get_option_at_index(lines.highlighted).id
        await pilot.press("d")
        await wait_until(pilot, lambda: len(app.session.scheduled_job_ids()) == 1)
        assert first not in app.session.scheduled_job_ids()
        shown = [str(lines.get_option_at_index(n).prompt) for n in range(lines.option_count)]
        assert not any(first in line for line in shown if first)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TasksScreen)
    assert not model_server.requests  # /loop, /tasks and d are answered by the app


@pytest.mark.req("FH13")
@pytest.mark.parametrize("command", ["/exit", "/quit"])
async def test_exit_and_quit_quit_the_app(
    model_server: ModelServer, project: Path, command: str
) -> None:
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*command, "enter")
        await wait_until(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0  # exit() was called: the app ends
    assert not model_server.requests
