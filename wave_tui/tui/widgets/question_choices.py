"""One AskUserQuestion question as a list the keys answer at once: arrows move, Space toggles
(multi-select) or chooses, Enter chooses and moves on; "Other…" opens the question's own text
field and "Skip this question" is the only way to leave it unanswered."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from wave_tui.session.types import Question

OTHER_ID = "other"
SKIP_ID = "skip"


class QuestionChoices(OptionList):
    """The options of question `index`, then "Other…" and "Skip this question"."""

    BINDINGS = [Binding("space", "toggle_choice", "Toggle", show=False)]

    class Done(Message):
        """The user chose (or skipped) and moves on to the next question."""

        def __init__(self, choices: QuestionChoices) -> None:
            super().__init__()
            self.choices = choices

    class WantsOther(Message):
        """The user picked "Other…": their own answer goes in the question's text field."""

        def __init__(self, choices: QuestionChoices) -> None:
            super().__init__()
            self.choices = choices

    def __init__(self, question: Question, index: int) -> None:
        super().__init__(id=f"q{index}", classes="question-choices", compact=True)
        self.question = question
        self.index = index
        self.chosen: set[int] = set()
        self.skipped = False
        self.other = ""  # the text field's value, kept here so the list can show it

    def on_mount(self) -> None:
        self._render_options()
        self.highlighted = 0

    @property
    def answered(self) -> bool:
        """An option chosen, own text given, or skipped on purpose."""
        return bool(self.chosen) or bool(self.other.strip()) or self.skipped

    @property
    def selected(self) -> tuple[str, ...]:
        options = self.question.options
        return tuple(options[n].label for n in sorted(self.chosen))

    def set_other(self, text: str) -> None:
        self.other = text
        if text.strip():
            self.skipped = False
        self._render_options()

    def _render_options(self) -> None:
        multi = self.question.multi_select
        on, off = ("[x]", "[ ]") if multi else ("(•)", "( )")
        options = [
            Option(
                Content.assemble(
                    (on if n in self.chosen else off, "bold"),
                    " ",
                    option.label,
                    (f" — {option.description}", "$text-muted") if option.description else "",
                ),
                id=f"q{self.index}-o{n}",
            )
            for n, option in enumerate(self.question.options)
        ]
        other = f"{on} Other: {self.other.strip()}" if self.other.strip() else f"{off} Other…"
        options.append(Option(Content(other), id=OTHER_ID))
        skip = on if self.skipped else off
        options.append(Option(Content.styled(f"{skip} Skip this question", "italic"), id=SKIP_ID))
        highlighted = self.highlighted
        self.clear_options()
        self.add_options(options)
        if highlighted is not None:
            self.highlighted = highlighted

    def _option_index(self) -> int | None:
        """The highlighted question option (None for Other and Skip)."""
        n = self.highlighted
        return n if n is not None and n < len(self.question.options) else None

    def action_toggle_choice(self) -> None:
        """Space: toggle the highlighted option (choose it, for a single choice)."""
        n = self._option_index()
        if self.highlighted == len(self.question.options):
            self.post_message(self.WantsOther(self))
            return
        if n is None:
            self.skipped = not self.skipped
            if self.skipped:
                self.chosen.clear()
        elif self.question.multi_select:
            self.chosen ^= {n}
            self.skipped = False
        else:
            self.chosen = {n}
            self.skipped = False
        self._render_options()

    def action_select(self) -> None:
        """Enter: choose the highlighted option (multi-select: keep what Space toggled, or this
        one when none is) and move on; on "Other…" write your own; on "Skip" skip and move on."""
        n = self._option_index()
        if self.highlighted == len(self.question.options):
            self.post_message(self.WantsOther(self))
            return
        if n is None:
            self.skipped, self.chosen = True, set()
        elif not self.question.multi_select or not self.chosen:
            self.chosen = {n} if not self.question.multi_select else self.chosen | {n}
            self.skipped = False
        self._render_options()
        self.post_message(self.Done(self))

    async def _on_click(self, event: events.Click) -> None:
        """A click toggles (or chooses) the option clicked; it never moves on by itself."""
        event.prevent_default()  # not OptionList's click, which selects (Enter)
        clicked = event.style.meta.get("option")
        if isinstance(clicked, int):
            self.highlighted = clicked
            self.action_toggle_choice()
