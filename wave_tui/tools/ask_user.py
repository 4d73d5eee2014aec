"""AskUserQuestion: 1–4 multiple-choice questions for the user (AQ1, AQ2).

The app injects an async `asker` that shows the dialog; `wave -p` has none, and the tool then
tells the model that nobody can answer. Every option list gets a free-text "Other" in the UI.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

from wave_tui.config.records import record
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult

MAX_QUESTIONS = 4
MIN_OPTIONS = 2
MAX_OPTIONS = 4
MAX_HEADER_CHARS = 12

DESCRIPTION = """\
Ask the user 1-4 multiple-choice questions when you need their decision or preference to go on \
(which approach, which library, what a requirement means). Each question has 2-4 options with a \
short label and a description; the user may always answer with their own text instead. Set \
multiSelect when several options may apply. Do not ask what you can find out yourself."""

NO_USER = (
    "AskUserQuestion is not available: this is a non-interactive run (wave -p) and nobody can "
    "answer. Make a reasonable assumption, say which one, and continue."
)


# The wire shape of a question is these dataclasses' schema; `parse_questions` checks it (its own
# messages, and the rules a schema cannot say: non-empty, distinct labels, the header's length).
@record
class QuestionOption:
    label: Annotated[str, Arg("1-5 words shown as the choice.")]
    description: Annotated[str, Arg("What choosing it means.")] = ""


@record
class Question:
    question: Annotated[str, Arg("The full question.")]
    header: Annotated[str, Arg("A tag of at most 12 characters.")]
    options: Annotated[
        tuple[QuestionOption, ...], Arg(min_items=MIN_OPTIONS, max_items=MAX_OPTIONS)
    ]
    # The schema asks for it; a model that leaves it out gets single choice.
    multi_select: Annotated[
        bool, Arg("Allow several answers.", name="multiSelect", schema_required=True)
    ] = False


@record
class QuestionAnswer:
    question: str
    selected: tuple[str, ...] = ()  # labels of the chosen options
    other: str | None = None  # free text typed instead of (or besides) the options
    skipped: bool = False  # the user chose to leave this question unanswered


# None: the user dismissed the dialog without answering.
Asker = Callable[[Sequence[Question]], Awaitable[Sequence[QuestionAnswer] | None]]


def _text(raw: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = raw.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ToolError(f"{where}: `{key}` must be a non-empty string.")
    return value.strip()


def parse_questions(key: str, raw: object) -> tuple[Question, ...]:
    """Validate the questions; every problem is one model-facing line."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_QUESTIONS:
        raise ToolError(f"`questions` must be a list of 1 to {MAX_QUESTIONS} questions.")
    questions: list[Question] = []
    for n, item in enumerate(raw, 1):
        where = f"question {n}"
        if not isinstance(item, dict):
            raise ToolError(f"{where} must be an object.")
        text = _text(item, "question", where)
        header = _text(item, "header", where, required=False)[:MAX_HEADER_CHARS]
        options = item.get("options")
        if not isinstance(options, list) or not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
            raise ToolError(f"{where}: `options` must list {MIN_OPTIONS} to {MAX_OPTIONS} options.")
        parsed: list[QuestionOption] = []
        for m, option in enumerate(options, 1):
            if not isinstance(option, dict):
                raise ToolError(f"{where}, option {m} must be an object with a label.")
            label = _text(option, "label", f"{where}, option {m}")
            parsed.append(
                QuestionOption(label, _text(option, "description", where, required=False))
            )
        if len({o.label for o in parsed}) != len(parsed):
            raise ToolError(f"{where}: option labels must differ.")
        multi = item.get("multiSelect", False)
        if not isinstance(multi, bool):
            raise ToolError(f"{where}: `multiSelect` must be a boolean.")
        questions.append(Question(text, header, tuple(parsed), multi))
    if len({q.question for q in questions}) != len(questions):
        raise ToolError("Questions must differ.")
    return tuple(questions)


# req: CV13
def format_answers(answers: Sequence[QuestionAnswer]) -> str:
    """One line per question; a question the user skipped on purpose says so (the app's dialog
    sends no question that is neither answered nor skipped)."""
    lines = []
    for answer in answers:
        parts = list(answer.selected)
        if answer.other:
            parts.append(answer.other)
        if parts:
            lines.append(f'"{answer.question}" = "{", ".join(parts)}"')
        elif answer.skipped:
            lines.append(f'"{answer.question}" = (skipped: the user chose not to answer)')
        else:
            lines.append(f'"{answer.question}" = "(no answer)"')
    return "The user answered your questions:\n" + "\n".join(lines)


@tool_arguments
class AskUserQuestionArgs:
    questions: Annotated[
        tuple[Question, ...], Arg(min_items=1, max_items=MAX_QUESTIONS, normalize=parse_questions)
    ]


class AskUserQuestionTool(TypedTool[AskUserQuestionArgs]):
    name = "AskUserQuestion"
    description = DESCRIPTION
    read_only = True
    arguments = AskUserQuestionArgs

    def __init__(self, asker: Asker | None) -> None:
        self.asker = asker

    # req: AQ2
    async def call(self, args: AskUserQuestionArgs, ctx: ToolContext) -> ToolResult:
        questions = args.questions
        if self.asker is None:
            return ToolResult(content=NO_USER, is_error=True, summary="No user to ask (-p)")
        # req: AQ1
        answers = await self.asker(questions)
        if answers is None:
            return ToolResult(
                content="The user dismissed the questions without answering. Ask differently "
                "or go on with what you know.",
                is_error=True,
                summary="Questions dismissed",
            )
        return ToolResult(
            content=format_answers(answers),
            summary=f"{len(answers)} answer{'s' * (len(answers) != 1)}",
        )
