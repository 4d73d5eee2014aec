"""AskUserQuestion: validation, the injected asker, and the refusal in -p (AQ1, AQ2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from wave_tui.tools.ask_user import AskUserQuestionTool, Question, QuestionAnswer
from wave_tui.tools.base import ToolContext


def _q(text: str = "Which database?", n_options: int = 2, multi: bool = False) -> dict[str, Any]:
    options = [{"label": f"opt{i}", "description": f"d{i}"} for i in range(n_options)]
    return {
        "question": text,
        "header": "Database choice!",
        "options": options,
        "multiSelect": multi,
    }


@pytest.mark.req("AQ1")
async def test_aq1_asker_gets_parsed_questions_and_answers_go_to_the_model(
    ctx: ToolContext,
) -> None:
    seen: list[Sequence[Question]] = []

    async def asker(questions: Sequence[Question]) -> Sequence[QuestionAnswer]:
        seen.append(questions)
        return [
            QuestionAnswer("Which database?", ("opt1",)),
            QuestionAnswer("Which tests?", ("opt0", "opt2"), other="and fuzzing"),
        ]

    tool = AskUserQuestionTool(asker)
    result = await tool.run({"questions": [_q(), _q("Which tests?", 3, True)]}, ctx)
    assert not result.is_error, result.content
    (questions,) = seen
    assert questions[0].header == "Database cho"  # 12 characters at most
    assert [o.label for o in questions[1].options] == ["opt0", "opt1", "opt2"]
    assert questions[1].multi_select and not questions[0].multi_select
    assert '"Which database?" = "opt1"' in result.content
    assert '"Which tests?" = "opt0, opt2, and fuzzing"' in result.content


@pytest.mark.req("FH10")
async def test_one_answer_is_said_in_the_singular(ctx: ToolContext) -> None:
    async def asker(questions: Sequence[Question]) -> Sequence[QuestionAnswer]:
        return [QuestionAnswer("Which database?", ("opt1",))]

    result = await AskUserQuestionTool(asker).run({"questions": [_q()]}, ctx)
    assert result.summary == "1 answer"


@pytest.mark.req("AQ1")
async def test_aq1_dismissed_dialog_is_reported(ctx: ToolContext) -> None:
    async def asker(questions: Sequence[Question]) -> None:
        return None

    result = await AskUserQuestionTool(asker).run({"questions": [_q()]}, ctx)
    assert result.is_error and "dismissed" in result.content


@pytest.mark.req("AQ1")
@pytest.mark.parametrize(
    ("questions", "message"),
    [
        ([], "1 to 4 questions"),
        ([_q(f"q{i}") for i in range(5)], "1 to 4 questions"),
        ([_q(n_options=1)], "2 to 4 options"),
        ([_q(n_options=5)], "2 to 4 options"),
        ([{**_q(), "multiSelect": "yes"}], "multiSelect"),
        ([{**_q(), "question": ""}], "question"),
        ([_q(), _q()], "differ"),
    ],
)
async def test_aq1_invalid_questions_are_tool_errors(
    ctx: ToolContext, questions: list[dict[str, Any]], message: str
) -> None:
    async def asker(questions: Sequence[Question]) -> Sequence[QuestionAnswer]:
        raise AssertionError("must not be asked")

    result = await AskUserQuestionTool(asker).run({"questions": questions}, ctx)
    assert result.is_error and message in result.content


@pytest.mark.req("AQ2")
async def test_aq2_refused_without_an_asker(ctx: ToolContext) -> None:
    result = await AskUserQuestionTool(None).run({"questions": [_q()]}, ctx)
    assert result.is_error and "non-interactive" in result.content
