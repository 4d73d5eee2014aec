"""AskUserQuestion: 1–4 multiple-choice questions for the user (AQ1, AQ2).

The app injects an async `asker` that shows the dialog; `wave -p` has none, and the tool then
tells the model that nobody can answer. Every option list gets a free-text "Other" in the UI.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wave_tui.tools.base import BaseTool, ToolContext, ToolError, ToolResult

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


@dataclass(frozen=True)
class QuestionOption:
    label: str
    description: str = ""


@dataclass(frozen=True)
class Question:
    question: str
    header: str
    options: tuple[QuestionOption, ...]
    multi_select: bool = False


@dataclass(frozen=True)
class QuestionAnswer:
    question: str
    selected: tuple[str, ...] = ()  # labels of the chosen options
    other: str | None = None  # free text typed instead of (or besides) the options


# None: the user dismissed the dialog without answering.
Asker = Callable[[Sequence[Question]], Awaitable[Sequence[QuestionAnswer] | None]]

_OPTION_SCHEMA = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "description": "1-5 words shown as the choice."},
        "description": {"type": "string", "description": "What choosing it means."},
    },
    "required": ["label"],
    "additionalProperties": False,
}
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_QUESTIONS,
            "items": {
                "type": "object",
                "properties": {
                    "question": {"type": "string", "description": "The full question."},
                    "header": {"type": "string", "description": "A tag of at most 12 characters."},
                    "options": {
                        "type": "array",
                        "minItems": MIN_OPTIONS,
                        "maxItems": MAX_OPTIONS,
                        "items": _OPTION_SCHEMA,
                    },
                    "multiSelect": {"type": "boolean", "description": "Allow several answers."},
                },
                "required": ["question", "header", "options", "multiSelect"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["questions"],
    "additionalProperties": False,
}


def _text(raw: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = raw.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ToolError(f"{where}: `{key}` must be a non-empty string.")
    return value.strip()


def parse_questions(args: dict[str, Any]) -> list[Question]:
    """Validate the arguments; every problem is one model-facing line."""
    raw = args.get("questions")
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
    return questions


def format_answers(answers: Sequence[QuestionAnswer]) -> str:
    lines = []
    for answer in answers:
        parts = list(answer.selected)
        if answer.other:
            parts.append(answer.other)
        lines.append(f'"{answer.question}" = "{", ".join(parts) or "(no answer)"}"')
    return "The user answered your questions:\n" + "\n".join(lines)


class AskUserQuestionTool(BaseTool):
    name = "AskUserQuestion"
    description = DESCRIPTION
    parameters = PARAMETERS
    read_only = True

    def __init__(self, asker: Asker | None) -> None:
        self.asker = asker

    async def _run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        questions = parse_questions(args)
        if self.asker is None:
            # req: AQ2
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
        return ToolResult(content=format_answers(answers), summary=f"{len(answers)} answers")
