"""The app's side of the work features' futures (AQ1, PL2): a session built as the app builds it emits
`QuestionAsked` / `PlanApprovalRequested`; whoever answers the future (the dialogs; here the
test, as a dialog would) decides the tool result."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import fixed_clock, server_env
from tests.tui.helpers import settle
from tests.wire_view import tool_results
from wave_tui.agent import events as ev
from wave_tui.session.factory import create_service
from wave_tui.session.types import AgentOptions, QuestionAnswer
from wave_tui.tui.app import WaveApp, make_app

QUESTION = {
    "question": "Which database?",
    "header": "Database",
    "options": [{"label": "sqlite"}, {"label": "postgres"}],
    "multiSelect": True,
}


def app_for(project: Path, model_server: ModelServer) -> WaveApp:
    environ = {**server_env(model_server), "WAVE_DISABLE_AUTO_MEMORY": "1"}
    service = create_service(AgentOptions(workdir=project, environ=environ, clock=fixed_clock))
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    return app


def answer_as_a_dialog_would(event: ev.AgentEvent) -> None:
    if isinstance(event, ev.QuestionAsked) and not event.future.done():
        question = event.questions[0]
        event.future.set_result(
            (QuestionAnswer(question.question, ("sqlite", "postgres"), other="both, really"),)
        )
    if isinstance(event, ev.PlanApprovalRequested) and not event.future.done():
        event.future.set_result("approve")


@pytest.mark.req("AQ1")
async def test_aq1_app_session_question_future_answers_the_tool(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(tool_call("AskUserQuestion", {"questions": [QUESTION]}), text("noted"))
    app = app_for(project, model_server)
    asked: list[ev.QuestionAsked] = []
    async with app.run_test(size=(100, 32)) as pilot:
        app.session.subscribe(
            lambda e: asked.append(e) if isinstance(e, ev.QuestionAsked) else None
        )
        app.session.subscribe(answer_as_a_dialog_would)
        await pilot.press(*"ask me", "enter")
        await settle(pilot)
    (event,) = asked
    assert event.questions[0].multi_select is True
    (result,) = tool_results(model_server.last_request.body)
    assert "sqlite" in result and "postgres" in result and "both, really" in result


@pytest.mark.req("PL2")
async def test_pl2_app_session_plan_future_approves_and_leaves_plan_mode(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(
        tool_call("EnterPlanMode", {}),
        tool_call("ExitPlanMode", {"plan": "1. add a flag"}),
        text("implementing"),
    )
    app = app_for(project, model_server)
    plans: list[ev.PlanApprovalRequested] = []
    async with app.run_test(size=(100, 32)) as pilot:
        app.session.subscribe(
            lambda e: plans.append(e) if isinstance(e, ev.PlanApprovalRequested) else None
        )
        app.session.subscribe(answer_as_a_dialog_would)
        await pilot.press(*"plan it", "enter")
        await settle(pilot)
        assert app.session.status().permission_mode == "default"
    (event,) = plans
    assert event.plan == "1. add a flag" and event.plan_file.read_text() == "1. add a flag\n"
    assert "approved the plan" in tool_results(model_server.last_request.body)[-1]
