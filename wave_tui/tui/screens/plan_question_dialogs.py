"""The plan dialog (PL2) and the AskUserQuestion dialog (AQ1): each answers its event's future."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Markdown, Static

from wave_tui.session.types import PlanDecision, Question, QuestionAnswer
from wave_tui.tui.screens.dialogs import choice_button, fit_body
from wave_tui.tui.typed_ahead import AnswersByKey
from wave_tui.tui.widgets.chat_items import plain_html_parser
from wave_tui.tui.widgets.footer import Footer
from wave_tui.tui.widgets.question_choices import QuestionChoices

OTHER = "Other…"
KEYS_HINT = (
    "↑↓ move · Space toggles · Enter chooses and goes on · Skip this question to leave it "
    "unanswered · Ctrl+S sends"
)


# req: PL2
class PlanDialog(AnswersByKey, ModalScreen[PlanDecision]):
    """The plan rendered as Markdown (HTML-like text in it stays text), and three ways on:
    approve with auto-accept edits / approve / keep planning (Escape keeps planning: nothing is
    approved by accident). The plan scrolls; the choices stay on screen."""

    BINDINGS = [
        Binding(
            "a", "choose('approve_accept_edits')", "Approve, auto-accept edits", id="plan-auto"
        ),
        Binding("y", "choose('approve')", "Approve", id="plan-approve"),
        Binding("n,escape", "choose('keep_planning')", "Keep planning", id="plan-keep"),
        Binding("up", "app.focus_previous", show=False),
        Binding("down", "app.focus_next", show=False),
    ]

    def __init__(self, plan: str, plan_file: str) -> None:
        super().__init__(classes="dialog-screen")
        self.plan = plan
        self.plan_file = plan_file

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog work-dialog"):
            yield Static(Content("Approve this plan?"), classes="dialog-title")
            with VerticalScroll(classes="plan-text"):
                yield Markdown(self.plan, parser_factory=plain_html_parser)
            yield Static(
                Content.assemble(("saved in ", "$text-muted"), self.plan_file),
                classes="dialog-detail",
            )
            with Vertical(classes="dialog-choices"):
                yield choice_button(
                    "a", "Approve, auto-accept edits", "approve_accept_edits", variant="primary"
                )
                yield choice_button("y", "Approve", "approve")
                yield choice_button("n", "Keep planning", "keep_planning")
        yield Footer()

    def on_mount(self) -> None:
        for button in self.query("#approve_accept_edits"):
            button.focus()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        fit_body(self, ".work-dialog", ".plan-text")

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
class QuestionDialog(AnswersByKey, ModalScreen[tuple[QuestionAnswer, ...] | None]):
    """Every question as a list the keys answer at once, with "Other…" (its own text field) and
    "Skip this question"; Enter moves on and sends after the last one, Ctrl+S sends, Escape
    dismisses (the model is told). Nothing is sent while a question is neither answered nor
    skipped (CV13)."""

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
                    kind = "  (several answers)" if question.multi_select else ""
                    yield Static(
                        Content.assemble(
                            (header, "$accent"),
                            (question.question, "bold"),
                            (kind, "$text-muted"),
                        ),
                        classes="question-text",
                    )
                    yield QuestionChoices(question, n)
                    yield Input(
                        placeholder=f"{OTHER} your own answer (Enter keeps it)",
                        id=f"q{n}-other",
                        classes="question-other",
                        compact=True,
                    )
            yield Static(Content(KEYS_HINT), id="question-note", classes="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Send (ctrl+s)", variant="primary", id="send", compact=True)
                yield Button("Dismiss (esc)", id="dismiss", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        for choices in self._lists()[:1]:  # none when the turn ended before the dialog showed
            choices.focus()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        fit_body(self, ".work-dialog", ".questions")

    def _lists(self) -> list[QuestionChoices]:
        """Each question's list, its own text taken from its field as it is now."""
        lists = list(self.query(QuestionChoices).results(QuestionChoices))
        for choices in lists:
            value = self.query_one(f"#q{choices.index}-other", Input).value
            if value != choices.other:
                choices.set_other(value)
        return lists

    def answers(self) -> tuple[QuestionAnswer, ...]:
        return tuple(
            QuestionAnswer(
                choices.question.question,
                choices.selected,
                choices.other.strip() or None,
                skipped=choices.skipped,
            )
            for choices in self._lists()
        )

    def on_question_choices_done(self, event: QuestionChoices.Done) -> None:
        event.stop()
        self._advance(event.choices.index)

    def on_question_choices_wants_other(self, event: QuestionChoices.WantsOther) -> None:
        event.stop()
        self.query_one(f"#q{event.choices.index}-other", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._choices_of(event.input).set_other(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        choices = self._choices_of(event.input)
        if choices.answered:
            self._advance(choices.index)

    def _choices_of(self, field: Input) -> QuestionChoices:
        index = int((field.id or "q0").removeprefix("q").split("-")[0])
        return self._lists()[index]

    def _advance(self, index: int) -> None:
        """Focus the next question; after the last one, send (or say what still waits)."""
        lists = self._lists()
        if index + 1 < len(lists):
            lists[index + 1].focus()
        else:
            self.action_send()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "send":
            self.action_send()
        else:
            self.action_dismiss_questions()

    # req: CV13
    def action_send(self) -> None:
        """Send, unless a question is neither answered nor skipped: it gets the focus."""
        waiting = next((c for c in self._lists() if not c.answered), None)
        if waiting is None:
            self.dismiss(self.answers())
            return
        note = self.query_one("#question-note", Static)
        note.update(
            Content.assemble(("Answer or skip first: ", "bold $warning"), waiting.question.question)
        )
        waiting.focus()
        waiting.scroll_visible()

    def action_dismiss_questions(self) -> None:
        self.dismiss(None)
