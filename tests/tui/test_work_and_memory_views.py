"""Work UI and the memory browser's new views, through Pilot."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from tests.tui.conftest import BuildApp
from tests.tui.helpers import open_memory, select_entry
from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths
from wave_tui.memory import catalog
from wave_tui.session.types import Question, QuestionOption, Task
from wave_tui.tui.screens.dialogs import ConfirmDelete
from wave_tui.tui.screens.memory_runs import RunsScreen
from wave_tui.tui.screens.plan_question_dialogs import PlanDialog, QuestionDialog
from wave_tui.tui.widgets.subagent_block import SubagentBlock
from wave_tui.tui.widgets.task_panel import TaskPanel


@pytest.mark.req("PL2")
async def test_pl2_plan_dialog_answers_the_future(build_app: BuildApp, tmp_path: Path) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        app.session._emit(ev.PlanApprovalRequested("1. do it", tmp_path / "plan.md", future))  # type: ignore[arg-type]
        await pilot.pause()
        assert isinstance(app.screen, PlanDialog)
        await pilot.press("a")
        await pilot.pause()
        assert future.result() == "approve_accept_edits"


@pytest.mark.req("AQ1")
async def test_aq1_question_dialog_single_choice_and_other_text(build_app: BuildApp) -> None:
    app = build_app()
    questions = (
        Question("Which db?", "DB", (QuestionOption("sqlite"), QuestionOption("postgres"))),
    )
    async with app.run_test(size=(100, 32)) as pilot:
        future = asyncio.get_running_loop().create_future()
        app.session._emit(ev.QuestionAsked(questions, future))
        await pilot.pause()
        assert isinstance(app.screen, QuestionDialog)
        await pilot.click("#q0", offset=(2, 1))  # the second option's row
        app.screen.query_one("#q0-other").value = "with pgbouncer"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        (answer,) = future.result()
        assert answer.selected == ("postgres",) and answer.other == "with pgbouncer"


@pytest.mark.req("AG5", "TK4")
async def test_tk4_task_panel_and_ag5_subagent_block(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        panel = app.chat_screen.query_one(TaskPanel)
        assert not panel.display
        tasks = (
            Task("1", "Write tests", status="completed"),
            Task("2", "Fix bug", active_form="Fixing the bug", status="in_progress"),
            Task("3", "Ship"),
        )
        app.session._emit(ev.TasksChanged(tasks))
        app.session._emit(ev.SubagentProgress("a1", "Find config", "started", "Explore"))
        app.session._emit(ev.SubagentProgress("a1", "Find config", "tool", "Grep config"))
        await pilot.pause()
        text = str(panel.content)
        assert panel.display and "Fixing the bug" in text and "1/3 done" in text
        block = app.chat_screen.query_one(SubagentBlock)
        assert "Grep config" in str(block.content) and "▸" in str(block.content)
        block.action_toggle_block()
        assert "▾" in str(block.content)


@pytest.mark.req("UX7")
async def test_ux7_stale_filter_and_whole_file_delete_says_so(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        table = await open_memory(pilot)
        await pilot.press(*"stale")  # the filter has the focus on open: no `/` needed
        await pilot.pause()
        assert "auto:redis_debugging.md" in table.keys
        assert not any(k.startswith(("project:", "user:", "rule:")) for k in table.keys)
        await pilot.press("down")
        assert app.screen.focused is table
        app.screen.query_one("#memory-filter").value = ""  # type: ignore[attr-defined]
        await pilot.pause()
        await select_entry(pilot, "auto:redis_debugging.md")
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDelete)
        assert "whole topic file redis_debugging.md" in app.screen.consequence
        assert "MEMORY.md" in app.screen.consequence


@pytest.mark.req("MX6")
async def test_mx6_missing_reference_marked(build_app: BuildApp, seeded_memory: WavePaths) -> None:
    agents = seeded_memory.project_agents_md
    agents.write_text(agents.read_text() + "- Config lives in src/gone_config.py\n")
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        table = await open_memory(pilot)
        key = next(
            k
            for k in table.keys
            if table.row_at(table.get_row_index(k)).cells[0].startswith("Config lives")
        )
        assert table.row_at(table.get_row_index(key)).cells[-1] == "missing"
        await select_entry(pilot, key)
        assert "src/gone_config.py" in str(app.screen.query_one("#preview-missing").content)  # type: ignore[attr-defined]


@pytest.mark.req("MX7")
async def test_mx7_runs_view_reverts_a_run(build_app: BuildApp, paths: WavePaths) -> None:
    memory = paths.memory_dir
    memory.mkdir(parents=True)
    target = memory / "x.md"
    target.write_text("after\n")
    audit = paths.project_dir / "extractions"
    audit.mkdir(parents=True, exist_ok=True)
    record = {
        "kind": "extraction",
        "started_at": time.time(),
        "session_id": "s1",
        "turn": 3,
        "changes": [{"path": str(target), "before": "before\n", "after": "after\n"}],
    }
    (audit / "run1.json").write_text(json.dumps(record))
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await open_memory(pilot)
        app.screen.query_one("#memory-table").focus()
        await pilot.press("u")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)
        assert "+after" in str(app.screen.query_one("#runs-diff").content)  # type: ignore[attr-defined]
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert target.read_text() == "before\n"
        assert len(list(audit.glob("*.json"))) == 2  # the revert is recorded


@pytest.mark.req("UX7")
@pytest.mark.parametrize("kept", [False, True], ids=["read-again", "kept-catalog"])
async def test_ux7_the_browser_shows_files_edited_elsewhere_when_shown_again(
    build_app: BuildApp, seeded_memory: WavePaths, monkeypatch: pytest.MonkeyPatch, kept: bool
) -> None:
    """UX7: an AGENTS.md item added by an editor appears when the user comes back to the browser
    — also through the session's kept catalog (`kept`: every file kept at once, not only those
    unchanged for two seconds; the edit changes the file's size)."""
    if kept:
        monkeypatch.setattr(catalog, "SETTLED_NS", 0)
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        table = await open_memory(pilot)
        before = len(table.keys)
        agents = seeded_memory.project_agents_md
        agents.write_text(agents.read_text() + "- Added in an editor\n")
        await pilot.press("f1")
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(table.keys) == before + 1
