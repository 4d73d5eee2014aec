"""`/workflows` in the app (WK2): a screen of the session's runs that follows a real run live
against the scripted server (its phase advancing as held agents answer), `s` then `y` stops it
and its agents, Enter shows phases with agents and results, the empty state, `/workflows stop
<id>` still answered in the chat; a snapshot at 80×24 of a finished run."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from tests.features.workflows.conftest import asks, is_main, write_workflow
from tests.model_server import ModelServer, text, tool_calls
from tests.tui.command_ui_helpers import extended_app, wait_for_screen
from tests.tui.conftest import server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.agent import events as ev
from wave_tui.features.workflows import runs as runs_module
from wave_tui.features.workflows.wiring import workflows_of
from wave_tui.tui.app import WaveApp
from wave_tui.tui.screens.workflows import WorkflowsScreen
from wave_tui.tui.widgets.chat_items import CommandOutputBlock
from wave_tui.tui.widgets.row_list import RowList

pytestmark = pytest.mark.req("WK2")

TWO_PHASES = """\
const found = await phase("gather", [{ description: "alpha", prompt: "alpha-task" }]);
const written = await phase("write", [{ description: "beta", prompt: "beta-task" }]);
return found[0].text + " + " + (written[0].ok ? written[0].text : written[0].error);
"""
LONG_WAIT = 1500  # 20 ms steps: a held agent's request crosses threads and the server


def allow_workflows(home: Path) -> None:
    folder = home / ".wave"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Workflow"]}}))


def after_tool(body: dict[str, Any]) -> bool:
    return is_main(body) and body["messages"][-1].get("role") == "tool"


def start_call(background: bool) -> Any:
    call: dict[str, Any] = {"name": "two", "args": None}
    if background:
        call["run_in_background"] = True
    return tool_calls([("Workflow", call)])


def cells(screen: WorkflowsScreen) -> list[tuple[str, ...]]:
    table = screen.query_one(RowList)
    return [table.row_at(n).cells for n in range(table.row_count)]


def shown(screen: WorkflowsScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def open_workflows(pilot: Pilot[None]) -> WorkflowsScreen:
    await pilot.press(*"/workflows", "enter")
    screen = await wait_for_screen(pilot, WorkflowsScreen)
    assert isinstance(screen, WorkflowsScreen)
    return screen


def the_run(app: WaveApp) -> runs_module.WorkflowRun:
    service = app.session.service
    assert service is not None
    feature = workflows_of(service)
    assert feature is not None
    (run,) = feature.runs.runs()
    return run


async def test_the_screen_follows_a_run_live_and_s_stops_it(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    allow_workflows(isolated_home)
    write_workflow(isolated_home / ".wave" / "workflows", "two", TWO_PHASES)
    hold_alpha, hold_beta = threading.Event(), threading.Event()
    model_server.enqueue(text("ALPHA-FOUND", hold=hold_alpha), when=asks("alpha-task"))
    model_server.enqueue(text("BETA-WROTE", hold=hold_beta), when=asks("beta-task"))
    model_server.enqueue(start_call(background=True), when=is_main)
    model_server.enqueue(text("started it"), when=after_tool)
    app = extended_app(project, server_env(model_server))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press(*"research it", "enter")
            await settle(pilot)
            screen = await open_workflows(pilot)
            run = the_run(app)
            await wait_until(pilot, lambda: cells(screen)[0][3:5] == ("gather", "1/0"))
            assert cells(screen)[0][:3] == ("two", run.id, "running")
            # alpha answers: the screen moves on to the next phase by itself.
            hold_alpha.set()
            await wait_until(pilot, lambda: cells(screen)[0][3:5] == ("write", "1/1"), LONG_WAIT)
            assert cells(screen)[0][3:5] == ("write", "1/1") and cells(screen)[0][5] != "0"
            # Enter: the phases with their agents and results.
            await pilot.press("enter")
            await pilot.pause()
            detail = shown(screen, "#workflow-detail-text")
            assert "Phase gather" in detail and "[completed] alpha" in detail
            assert "ALPHA-FOUND" in detail
            assert "Phase write (running)" in detail and "[running] beta" in detail
            assert not screen.query_one(RowList).display
            await pilot.press("escape")  # back to the list, the screen stays
            await pilot.pause()
            assert app.screen is screen and screen.query_one(RowList).display
            # s asks in one line; y stops the run and its agent.
            ended: list[ev.SubagentProgress] = []
            app.session.subscribe(
                lambda e: (
                    ended.append(e)
                    if isinstance(e, ev.SubagentProgress) and e.phase == "finished"
                    else None
                )
            )
            await pilot.press("s")
            await pilot.pause()
            assert f"Stop two {run.id} and its agents? y stops it" in shown(
                screen, "#workflows-hint"
            )
            assert run.status == "running"
            await pilot.press("y")
            await wait_until(pilot, lambda: cells(screen)[0][2] == "stopped", LONG_WAIT)
            assert cells(screen)[0][2:5] == ("stopped", "write", "0/2")
            assert run.status == "stopped"
            assert [a.status for p in run.phases for a in p.agents] == ["completed", "stopped"]
            # beta's turn ended there, aborted, while its reply was still held.
            await wait_until(pilot, lambda: bool(ended), LONG_WAIT)
            assert [(e.description, e.text) for e in ended] == [("beta", "aborted")]
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, WorkflowsScreen)
    finally:
        hold_alpha.set()
        hold_beta.set()


async def test_s_asks_first_and_n_keeps_the_run(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    allow_workflows(isolated_home)
    write_workflow(isolated_home / ".wave" / "workflows", "two", TWO_PHASES)
    hold = threading.Event()
    model_server.enqueue(text("ALPHA-FOUND", hold=hold), when=asks("alpha-task"))
    model_server.enqueue(start_call(background=True), when=is_main)
    model_server.enqueue(text("started it"), when=after_tool)
    app = extended_app(project, server_env(model_server))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press(*"research it", "enter")
            await settle(pilot)
            screen = await open_workflows(pilot)
            await wait_until(pilot, lambda: bool(cells(screen)))
            await pilot.press("s")
            await pilot.pause()
            assert "y stops it" in shown(screen, "#workflows-hint")
            await pilot.press("n")
            await pilot.pause()
            assert "y stops it" not in shown(screen, "#workflows-hint")
            await pilot.press("y")  # no question open: nothing happens
            await pilot.pause()
            assert the_run(app).status == "running"
            assert cells(screen)[0][2] == "running"
    finally:
        hold.set()


async def test_the_empty_state_says_how_to_start_one(
    model_server: ModelServer, project: Path
) -> None:
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_workflows(pilot)
        assert screen.query_one("#workflows-empty").display
        assert "ask wave to run a workflow" in shown(screen, "#workflows-empty")
        assert not screen.query_one(RowList).display
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, WorkflowsScreen)
    assert not model_server.requests


async def test_workflows_stop_with_an_id_is_still_answered_in_the_chat(
    model_server: ModelServer, project: Path
) -> None:
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"/workflows stop w-nope", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, WorkflowsScreen)
        blocks = list(app.chat_screen.query(CommandOutputBlock))
        assert [str(b.content) for b in blocks] == ["No workflow run w-nope."]


@pytest.mark.usefixtures("frozen_time")
def test_a_finished_run_at_80x24(
    snap_compare: Any,
    model_server: ModelServer,
    project: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    allow_workflows(isolated_home)
    write_workflow(isolated_home / ".wave" / "workflows", "two", TWO_PHASES)
    monkeypatch.setattr(runs_module, "new_run_id", lambda: "w0c0ffee0")
    model_server.enqueue(text("ALPHA-FOUND"), when=asks("alpha-task"))
    model_server.enqueue(text("BETA-WROTE"), when=asks("beta-task"))
    model_server.enqueue(start_call(background=False), when=is_main)
    model_server.enqueue(text("done"), when=after_tool)

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"research it", "enter")
        await settle(pilot)
        screen = await open_workflows(pilot)
        await wait_until(pilot, lambda: bool(cells(screen)))

    app = extended_app(project, server_env(model_server))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
