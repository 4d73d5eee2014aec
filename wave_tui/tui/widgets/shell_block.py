"""A `!cmd` run in the chat (CV8): the command, its output verbatim as it streams, its end.

Not a user bubble and never Markdown: the command's output is shown as it was printed. While
the command runs, a spinner turns and the last lines of output show; Esc stops it (the screen's
binding). The exit code shows when it is not 0, or that the command was killed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from wave_tui.tui.format import clip_output, shell_ending_label
from wave_tui.tui.widgets.status_line import SPINNER_FRAMES

if TYPE_CHECKING:
    from wave_tui.agent import events as ev
    from wave_tui.session.types import ShellRun

LIVE_TAIL_LINES = 12  # of the output while the command runs: the newest ones


class ShellBlock(Vertical):
    DEFAULT_CSS = """
    ShellBlock {
        height: auto;
        margin-top: 1;
        padding: 0 1;
        border-left: outer $secondary;
        background: $boost;
    }
    ShellBlock.-failed {
        border-left: outer $error;
    }
    ShellBlock .shell-output {
        color: $text;
    }
    ShellBlock .shell-output.-empty {
        color: $text-muted;
        text-style: italic;
    }
    """

    def __init__(self, command: str) -> None:
        super().__init__(classes="shell-block -running")
        self.command = command
        self.output = ""
        self.ending = ""  # "" while running; afterwards the label of how it ended ("" if 0)
        self.running = True
        self._frame = 0
        self._timer: Timer | None = None
        self._refresh_scheduled = False

    @classmethod
    def finished(cls, run: ShellRun) -> ShellBlock:
        """A run that ended before the chat showed it (a restored conversation)."""
        block = cls(run.command)
        block.running = False
        block.output = run.output
        block.ending = shell_ending_label(run.exit_code, run.ending)
        block.set_class(bool(block.ending), "-failed")
        block.remove_class("-running")
        return block

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="shell-header")
        yield Static("", markup=False, classes="shell-output")

    def on_mount(self) -> None:
        if self.running and self.app.animation_level != "none":
            self._timer = self.set_interval(0.1, self._tick)
        self._render_output()

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER_FRAMES)
        self.query_one(".shell-header", Static).update(self._header())

    def _header(self) -> Content:
        parts: list[str | tuple[str, str]] = [("$ ", "bold $secondary"), (self.command, "bold")]
        if self.running:
            spinner = SPINNER_FRAMES[self._frame] if self._timer is not None else "●"
            parts += ["  ", (f"{spinner} running · esc stops", "$text-muted italic")]
        elif self.ending:
            parts += ["  ", (self.ending, "bold $error")]
        return Content.assemble(*parts)

    def append(self, text: str) -> None:
        """More output; shown once per batch of events, not once per piece."""
        self.output += text
        if not self._refresh_scheduled:
            self._refresh_scheduled = True
            self.call_later(self._show_output)

    def finish(self, run: ShellRun) -> None:
        self.running = False
        self.output = run.output
        self.ending = shell_ending_label(run.exit_code, run.ending)
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.remove_class("-running")
        self.set_class(bool(self.ending), "-failed")
        self.query_one(".shell-header", Static).update(self._header())
        self._show_output()

    def _show_output(self) -> None:
        self._refresh_scheduled = False
        if self.is_attached:  # a later call may find the block gone (/clear)
            self._render_output()

    def _render_output(self) -> None:
        shown = self.output.rstrip("\n")
        if self.running:
            shown = "\n".join(shown.splitlines()[-LIVE_TAIL_LINES:])
        else:
            shown = clip_output(shown)
        empty = not shown.strip()
        output = self.query_one(".shell-output", Static)
        output.set_class(empty, "-empty")
        output.display = not (empty and self.running)
        output.update("(no output)" if empty else shown)


class ShellBlocks:
    """The chat's running `!cmd` blocks, by run id: each shell event to its block."""

    def __init__(self) -> None:
        self.running: dict[str, ShellBlock] = {}

    async def apply(
        self,
        event: ev.ShellStarted | ev.ShellOutput | ev.ShellFinished,
        append: Callable[[ShellBlock], Awaitable[None]],
    ) -> None:
        from wave_tui.agent import events as ev  # loaded by then: the session sent the event
        from wave_tui.session.types import ShellRun

        if isinstance(event, ev.ShellStarted):
            self.running[event.run_id] = ShellBlock(event.command)
            await append(self.running[event.run_id])
        elif isinstance(event, ev.ShellOutput):
            if block := self.running.get(event.run_id):
                block.append(event.text)
        else:
            run = ShellRun(event.command, event.output, event.exit_code, event.ending)
            if ended := self.running.pop(event.run_id, None):
                ended.finish(run)
            else:  # started before the chat was there to show it
                await append(ShellBlock.finished(run))
