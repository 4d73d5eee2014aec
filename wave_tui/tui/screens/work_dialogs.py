"""The plan dialog (PL2) and the AskUserQuestion dialog (AQ1): each answers its event's future."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, RadioButton, RadioSet, Static

from wave_tui.session.facade import PlanDecision, Question, QuestionAnswer
from wave_tui.tui.widgets.footer import Footer

OTHER = "Other…"


# req: PL2
class PlanDialog(ModalScreen[PlanDecision]):
    """The plan as written, and three ways on: approve with auto-accept edits / approve / keep
    planning (Escape keeps planning: nothing is approved by accident)."""

    BINDINGS = [
        Binding(
            "a", "choose('approve_accept_edits')", "Approve, auto-accept edits", id="plan-auto"
        ),
        Binding("y", "choose('approve')", "Approve", id="plan-approve"),
        Binding("n,escape", "choose('keep_planning')", "Keep planning", id="plan-keep"),
    ]

    def __init__(self, plan: str, plan_file: str) -> None:
        super().__init__(classes="dialog-screen")
        self.plan = plan
        self.plan_file = plan_file

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog work-dialog"):
            yield Static(Content("Approve this plan?"), classes="dialog-title")
            with VerticalScroll(classes="plan-text"):
                yield Static(self.plan, markup=False)
            yield Static(
                Content.assemble(("saved in ", "$text-muted"), self.plan_file),
                classes="dialog-detail",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button(
                    "Approve, auto-accept edits (a)", variant="primary", id="approve_accept_edits"
                )
                yield Button("Approve (y)", id="approve")
                yield Button("Keep planning (n)", id="keep_planning")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "keep_planning")

    def action_choose(self, choice: str) -> None:
        if choice == "approve_accept_edits":
            self.dismiss("approve_accept_edits")
        elif choice == "approve":
            self.dismiss("approve")
        else:
            self.dismiss("keep_planning")


# req: AQ1
class QuestionDialog(ModalScreen[tuple[QuestionAnswer, ...] | None]):
    """Every question with its options (radio buttons, or checkboxes for multi-select) and an
    "Other…" free-text field; Ctrl+S sends, Escape dismisses (the model is told)."""

    BINDINGS = [
        Binding("ctrl+s", "send", "Send answers", id="send-answers", priority=True),
        Binding("escape", "dismiss_questions", "Dismiss", id="dismiss-questions"),
    ]

    def __init__(self, questions: tuple[Question, ...]) -> None:
        super().__init__(classes="dialog-screen")
        self.questions = questions

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog work-dialog"):
            with VerticalScroll(classes="questions"):
                for n, question in enumerate(self.questions):
                    header = f"[{question.header}] " if question.header else ""
                    yield Static(
                        Content.assemble((header, "$accent"), (question.question, "bold")),
                        classes="question-text",
                    )
                    if question.multi_select:
                        for m, option in enumerate(question.options):
                            yield Checkbox(
                                _label(option.label, option.description), id=f"q{n}-o{m}"
                            )
                    else:
                        with RadioSet(id=f"q{n}"):
                            for m, option in enumerate(question.options):
                                yield RadioButton(
                                    _label(option.label, option.description), id=f"q{n}-o{m}"
                                )
                    yield Input(placeholder=f"{OTHER} (your own answer)", id=f"q{n}-other")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Send (ctrl+s)", variant="primary", id="send")
                yield Button("Dismiss (esc)", id="dismiss")
        yield Footer()

    def answers(self) -> tuple[QuestionAnswer, ...]:
        result = []
        for n, question in enumerate(self.questions):
            selected = []
            for m, option in enumerate(question.options):
                if question.multi_select:
                    chosen = self.query_one(f"#q{n}-o{m}", Checkbox).value
                else:
                    chosen = self.query_one(f"#q{n}-o{m}", RadioButton).value
                if chosen:
                    selected.append(option.label)
            other = self.query_one(f"#q{n}-other", Input).value.strip() or None
            result.append(QuestionAnswer(question.question, tuple(selected), other))
        return tuple(result)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "send":
            self.action_send()
        else:
            self.action_dismiss_questions()

    def action_send(self) -> None:
        self.dismiss(self.answers())

    def action_dismiss_questions(self) -> None:
        self.dismiss(None)


def _label(label: str, description: str) -> Content:
    return Content.assemble(label, (f" — {description}", "$text-muted") if description else "")
