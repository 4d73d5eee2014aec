"""A subagent's progress in the chat (AG5): one line while collapsed (description, type, last
step), every step when expanded; Enter or a click toggles."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from wave_tui.agent.events import SubagentProgress

MAX_STEPS = 200  # a long-running subagent must not grow the chat without bound


# req: AG5
class SubagentBlock(Static, can_focus=True):
    BINDINGS = [("enter", "toggle_block", "Expand / collapse")]

    def __init__(self, agent_id: str, description: str) -> None:
        super().__init__("", classes="subagent-block -collapsed")
        self.agent_id = agent_id
        self.description = description
        self.kind = ""
        self.steps: list[tuple[str, str]] = []
        self.result: str | None = None
        self.expanded = False
        self._render_block()

    def apply(self, event: SubagentProgress) -> None:
        if event.phase == "started":
            self.kind = event.text
        elif event.phase == "finished":
            self.result = event.text
        else:
            self.steps = [*self.steps, (event.phase, event.text)][-MAX_STEPS:]
        self._render_block()

    def action_toggle_block(self) -> None:
        self.expanded = not self.expanded
        self.set_class(not self.expanded, "-collapsed")
        self._render_block()

    def on_click(self) -> None:
        self.action_toggle_block()

    def _render_block(self) -> None:
        arrow = "▾" if self.expanded else "▸"
        state = "done" if self.result is not None else "running"
        head: list[str | tuple[str, str]] = [
            (f"{arrow} Agent ", "bold"),
            (self.description, "bold"),
            (f"  {self.kind}" if self.kind else "", "$text-muted"),
            (f"  · {_steps(len(self.steps))} · {state}", "$text-muted"),
        ]
        if not self.expanded:
            if self.steps:
                phase, text = self.steps[-1]
                head += ["\n  ", (_step(phase, text), "$text-muted")]
            self.update(Content.assemble(*head))
            return
        for phase, text in self.steps:
            head += ["\n  ", _step(phase, text)]
        if self.result is not None:
            head += ["\n  ", ("→ ", "$success"), self.result]
        self.update(Content.assemble(*head))


def _step(phase: str, text: str) -> str:
    first = " ".join(text.split())[:100]
    return f"⚙ {first}" if phase == "tool" else first


def _steps(count: int) -> str:
    return f"{count} step" if count == 1 else f"{count} steps"
