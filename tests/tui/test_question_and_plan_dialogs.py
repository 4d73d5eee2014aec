"""AskUserQuestion answered from the keyboard at once, never sent half-answered unless a
question is skipped on purpose (CV13); the plan dialog renders the plan as Markdown with its
choices on screen (PL2)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Markdown, Static

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import BuildApp
from tests.tui.helpers import settle, wait_until
from tests.tui.test_work_events import app_for, tool_results
from wave_tui.agent import events as ev
from wave_tui.session.types import Question, QuestionAnswer, QuestionOption
from wave_tui.tui.screens.plan_question_dialogs import PlanDialog, QuestionDialog

DATABASE = Question(
    "Which database?", "DB", (QuestionOption("sqlite", "fast"), QuestionOption("postgres"))
)
CHECKS = Question(
    "Which checks?", "CI", (QuestionOption("lint"), QuestionOption("types")), multi_select=True
)


async def open_questions(
    pilot: Pilot[None], questions: tuple[Question, ...]
) -> tuple[QuestionDialog, asyncio.Future[tuple[QuestionAnswer, ...] | None]]:
    app = pilot.app
    future: asyncio.Future[tuple[QuestionAnswer, ...] | None]
    future = asyncio.get_running_loop().create_future()
    app.session._emit(ev.QuestionAsked(questions, future))  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, QuestionDialog))
    dialog = app.screen
    assert isinstance(dialog, QuestionDialog)
    await pilot.pause()
    return dialog, future


@pytest.mark.req("CV13")
async def test_cv13_arrows_space_and_enter_answer_at_once(build_app: BuildApp) -> None:
    """No click, no Tab: Down + Enter chooses postgres and moves on; Space toggles two checks;
    Enter after the last question sends."""
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        _dialog, future = await open_questions(pilot, (DATABASE, CHECKS))
        await pilot.press("down", "enter")
        assert not future.done()
        await pilot.press("space", "down", "space", "enter")
        await pilot.pause()
        assert future.result() == (
            QuestionAnswer("Which database?", ("postgres",)),
            QuestionAnswer("Which checks?", ("lint", "types")),
        )


@pytest.mark.req("CV13")
async def test_cv13_unanswered_questions_are_not_sent_until_skipped(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog, future = await open_questions(pilot, (DATABASE, CHECKS))
        await pilot.press("enter")  # sqlite, then on to the checks
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not future.done()
        note = str(dialog.query_one("#question-note", Static).visual)
        assert "Answer or skip first: Which checks?" in note
        assert dialog.focused is dialog.query_one("#q1")
        await pilot.click("#send")
        await pilot.pause()
        assert not future.done()
        dialog.query_one("#q1").focus()
        await pilot.press("down", "down", "down", "enter")  # lint, types, Other…, Skip
        await pilot.pause()
        assert future.result() == (
            QuestionAnswer("Which database?", ("sqlite",)),
            QuestionAnswer("Which checks?", skipped=True),
        )


@pytest.mark.req("CV13")
async def test_cv13_a_skipped_question_reaches_the_model_as_skipped(
    project: Path, model_server: ModelServer
) -> None:
    question = {
        "question": "Which database?",
        "header": "DB",
        "options": [{"label": "sqlite"}, {"label": "postgres"}],
    }
    model_server.enqueue(tool_call("AskUserQuestion", {"questions": [question]}), text("noted"))
    app = app_for(project, model_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"ask me", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionDialog))
        await pilot.pause()
        await pilot.press("ctrl+s")  # refused: nothing answered yet
        await pilot.pause()
        assert isinstance(app.screen, QuestionDialog)
        await pilot.press("up", "enter")  # from sqlite up to the last row: Skip this question
        await settle(pilot)
    (result,) = tool_results(model_server.last_request.body)
    assert '"Which database?" = (skipped: the user chose not to answer)' in result
    assert "(no answer)" not in result


PLAN = "# Plan\n\n1. Add the **failing** test\n2. Fix `parse_config`\n\n" + "\n".join(
    f"- step {n}: a detail of the plan" for n in range(40)
)


@pytest.mark.req("PL2")
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_pl2_the_plan_is_rendered_markdown_and_its_choices_stay_on_screen(
    build_app: BuildApp, tmp_path: Path, size: tuple[int, int]
) -> None:
    app = build_app()
    async with app.run_test(size=size) as pilot:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        app.session._emit(ev.PlanApprovalRequested(PLAN, tmp_path / "plan.md", future))
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        dialog = app.screen
        assert isinstance(dialog, PlanDialog)
        await pilot.pause()
        markdown = dialog.query_one(Markdown)
        assert [str(h.visual) for h in markdown.query("MarkdownH1")] == ["Plan"]
        shown = "\n".join(str(s.visual) for s in dialog.query(Static))
        assert "**failing**" not in shown and "# Plan" not in shown
        screen = dialog.region
        for button in dialog.query(Button):
            under, _ = dialog.get_widget_at(button.region.x + 1, button.region.y)
            assert screen.contains_region(button.region) and under is button, button.id
        await pilot.press("y")
        await pilot.pause()
        assert future.result() == "approve"
