"""The blocks of the chat log: user lines, streamed replies, tool calls, notices, errors.

Everything that came from the model, a tool or a file is shown with markup off. A reply's
Thinking and a tool's output fold (`Expandable`): Enter or Space on the focused title, or
Ctrl+O from anywhere in the chat for the newest one.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from wave_tui.tui.format import clip_output

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from textual.widgets import Markdown

# Textual's Markdown (markdown-it, linkify) is imported with the first reply, not before the
# first frame: the start-up would pay for it before anything is shown.


# req: UX4
@cache
def plain_html_parser() -> MarkdownIt:
    """Markdown as the model wrote it: HTML-like text (`List<String>`, `<div>`) stays text.
    One parser for every reply: Textual builds a new one (linkify regexes and all) for each
    streamed append otherwise; parsing keeps no state in the parser, so sharing it is safe."""
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like", {"html": False})


class Expandable(Collapsible):
    """A Collapsible whose focused title also toggles with Space (Enter does already)."""

    BINDINGS = [Binding("space", "toggle_block", "Toggle", show=False)]

    def action_toggle_block(self) -> None:
        self.collapsed = not self.collapsed


def shown_expandables(log: Widget) -> list[Expandable]:
    """The Thinking and tool-output blocks shown in `log` (none of them hidden), oldest first."""
    shown: list[Expandable] = []
    for block in log.query(Expandable):
        node: Widget | None = block
        while node is not None and node is not log and node.display:
            node = node.parent if isinstance(node.parent, Widget) else None
        if node is log:
            shown.append(block)
    return shown


DIFF_SHOWN_LINES = 30  # of an Edit/Write diff in the chat (the rest is counted)


def diff_view(diff: str) -> Content:
    """A change as removed (red) and added (green) lines; the text verbatim, never markup."""
    lines = diff.splitlines()
    if len(lines) > DIFF_SHOWN_LINES:
        lines = [*lines[:DIFF_SHOWN_LINES], f"… {len(lines) - DIFF_SHOWN_LINES} more lines"]
    styled: list[Content] = []
    for line in lines:
        if line.startswith("@@"):
            styled.append(Content.styled(line, "$text-muted"))
        elif line.startswith("+"):
            styled.append(Content.styled(line, "$text-success on $success-muted"))
        elif line.startswith("-"):
            styled.append(Content.styled(line, "$text-error on $error-muted"))
        else:
            styled.append(Content(line))
    return Content("\n").join(styled)


def diagnostics_of(content: str) -> str:
    """The `<diagnostics>` blocks a language server added to a tool's result, as one text."""
    start = content.find("<diagnostics")
    return content[start:].strip() if start >= 0 else ""


class UserMessage(Static):
    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="user-message")


SELF_EXPLAINED_KINDS = frozenset({"info", "cut", "retry", "rate-limit", "limit"})  # no "kind:"


class NoticeLine(Static):
    """A compact, dimmed line (freshness notices, rules loaded, interruptions...)."""

    def __init__(self, text: str, kind: str = "") -> None:
        label = f"{kind}: {text}" if kind and kind not in SELF_EXPLAINED_KINDS else text
        super().__init__(label, markup=False, classes="notice-line")


class CommandOutputBlock(Static):
    """What a slash command answered locally (/help, /model, /resume...)."""

    def __init__(self, command: str, text: str, is_error: bool) -> None:
        super().__init__(text, markup=False, classes="command-output")
        self.border_title = command
        self.set_class(is_error, "-error")


class ErrorLine(Static):
    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="error-line")


class AssistantMessage(Vertical):
    """One model reply: collapsible dimmed reasoning above a streamed Markdown body."""

    def __init__(self, message_id: str, content: str = "", reasoning: str = "") -> None:
        super().__init__(classes="assistant-message")
        self.message_id = message_id
        self._content = content
        self._reasoning = reasoning
        self._pending: list[str] = []  # text deltas not yet appended to the Markdown
        self._flush_scheduled = False
        # One append at a time (Markdown.append reads the source before it takes its lock).
        self._appending = asyncio.Lock()

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown

        with Expandable(title="Thinking", collapsed=bool(self._content), classes="reasoning"):
            yield Static(self._reasoning, markup=False, classes="reasoning-text")
        yield Markdown(self._content, classes="reply", parser_factory=plain_html_parser)

    def on_mount(self) -> None:
        self.query_one(".reasoning").display = bool(self._reasoning)
        self.query_one(".reply").display = bool(self._content)

    @property
    def has_text(self) -> bool:
        """Whether any of the reply (or its Thinking) has arrived."""
        return bool(self._content or self._reasoning)

    async def append_reasoning(self, text: str) -> None:
        self._reasoning += text
        self.query_one(".reasoning").display = True
        self.query_one(".reasoning-text", Static).update(self._reasoning)

    def _reply(self) -> Markdown:
        from textual.widgets import Markdown

        return self.query_one(".reply", Markdown)

    async def append_text(self, text: str) -> None:
        # Deltas arrive one token per event: they are gathered and appended to the Markdown
        # once per batch of queued events, not re-parsed per token (a long reply would
        # re-parse its whole text once per token).
        self._content += text
        self._pending.append(text)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self.call_later(self._flush)

    async def _flush(self) -> None:
        """Append what gathered, awaited here. Not Textual's MarkdownStream: its `stop()`
        cancels a task of its own and awaits it, and a task cancelled before its first step
        raises CancelledError into the awaiting task — the app's, which then ended quietly
        (exit 0, an empty screen) when a reply finished right after its stream was made."""
        self._flush_scheduled = False
        async with self._appending:
            text = "".join(self._pending)
            self._pending.clear()
            if not text:
                return
            markdown = self._reply()
            markdown.display = True
            await markdown.append(text)

    async def finish(self, content: str) -> None:
        await self._flush()
        markdown = self._reply()
        if content and content != self._content:
            self._content = content
            await markdown.update(content)
        markdown.display = bool(self._content)
        if self._reasoning:
            self.query_one(".reasoning", Collapsible).collapsed = True
        if not self._content and not self._reasoning:
            self.display = False


class ToolBlock(Vertical):
    """A tool call: name, key argument, status, and its output in a collapsible."""

    # The output starts on the line under its title (Collapsible's own top padding wastes one).
    DEFAULT_CSS = """
    ToolBlock Expandable > Contents {
        padding: 0 0 0 3;
    }
    """

    def __init__(self, call_id: str, name: str, key_arg: str) -> None:
        super().__init__(classes="tool-block -running")
        self.call_id = call_id
        self.tool_name = name
        self.key_arg = key_arg
        self.status = "running…"

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="tool-header")
        with Expandable(title="output", collapsed=True, classes="tool-output"):
            yield Static("", markup=False, classes="tool-output-text")

    def on_mount(self) -> None:
        self.query_one(".tool-output").display = False

    def _header(self) -> Content:
        return Content.assemble(
            ("⏺ ", "$accent"),
            (self.tool_name, "bold"),
            "  ",
            (self.key_arg, "$text-muted"),
            "  ",
            (self.status, "$text-muted italic"),
        )

    # req: MA4
    def progress(self, text: str) -> None:
        """The running call's latest progress line, in place of "running…" until it ends."""
        if self.has_class("-running"):
            self.status = f"… {text}"
            self.query_one(".tool-header", Static).update(self._header())

    def finish(self, summary: str, content: str, is_error: bool, diff: str = "") -> None:
        """The call's end; a change (Edit, Write over a file) shows as its diff, open, in place
        of the tool's own text."""
        self.status = ("✗ " if is_error else "✓ ") + (summary or ("error" if is_error else "done"))
        self.remove_class("-running")
        self.add_class("-error" if is_error else "-done")
        self.query_one(".tool-header", Static).update(self._header())
        output = self.query_one(".tool-output", Expandable)
        text = self.query_one(".tool-output-text", Static)
        if diff.strip() and not is_error:
            output.display = True
            output.title = "diff"
            output.collapsed = False
            text.add_class("-diff")
            found = diagnostics_of(content)
            shown = diff_view(diff)
            if found:  # what the language server said of the change, under it
                shown = Content("\n").join([shown, Content.styled(found, "$text-error")])
            text.update(shown)
        elif content.strip():
            output.display = True
            text.update(clip_output(content))
