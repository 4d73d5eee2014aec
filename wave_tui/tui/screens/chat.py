"""The chat screen: the conversation with the agent, its status line and the input."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, cast

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static, TextArea

from wave_tui.config.terminal_text import neutralise_value
from wave_tui.tui.format import background_finished, one_line, show_key_arg, shown_tool_output
from wave_tui.tui.widgets.chat_items import (
    AssistantMessage,
    CommandOutputBlock,
    ErrorLine,
    NoticeLine,
    ToolBlock,
    UserMessage,
    shown_expandables,
)
from wave_tui.tui.widgets.chat_log import ChatLog, NewOutputMarker
from wave_tui.tui.widgets.command_popup import CommandPopup
from wave_tui.tui.widgets.footer import Footer
from wave_tui.tui.widgets.history_input import Completion, HistoryInput
from wave_tui.tui.widgets.shell_block import ShellBlocks
from wave_tui.tui.widgets.start_panel import StartPanel
from wave_tui.tui.widgets.status_line import STARTING, StatusLine
from wave_tui.tui.widgets.task_panel import TaskPanel

if TYPE_CHECKING:
    from wave_tui.agent import events as ev
    from wave_tui.session.types import AgentStatus, Message
    from wave_tui.tui.app import WaveApp

FIRST_RUN_HELP = """\
# No model endpoint configured

Chat needs an OpenAI-compatible endpoint. The **memory browser** (F2) and **settings** (F3)
work without one.

Set three environment variables and start `wave` again:

```sh
export WAVE_BASE_URL=https://api.example.com/v1
export WAVE_API_KEY=your-key
export WAVE_MODEL=model-name
```

or put them in `~/.wave/settings.json` (picked up without a restart):

```json
{
  "model": "model-name",
  "env": {"WAVE_BASE_URL": "https://api.example.com/v1", "WAVE_API_KEY": "your-key"}
}
```
"""

KEPT_ON_CLEAR = frozenset({"first-run", "settings-problems"})
QUEUE_LINES = 5  # the queue panel's max-height (chat.tcss)
PROMPT_HINTS = (
    "Message wave",
    "Shift+Enter newline",
    "!cmd shell",
    "@file attach",
    "# saves a memory",
)
HINT_SEPARATOR = "  ·  "
PROMPT_PLACEHOLDER = HINT_SEPARATOR.join(PROMPT_HINTS)


# req: FH10
def prompt_placeholder(width: int) -> str:
    """The input's hints that fit whole in `width` cells, in order (a narrow terminal cut the
    last one to a lone `#`)."""
    shown = PROMPT_HINTS[0]
    for hint in PROMPT_HINTS[1:]:
        longer = shown + HINT_SEPARATOR + hint
        if cell_len(longer) > width:
            break
        shown = longer
    return shown


PROMPT_RETURNED = "not sent: the message is back in the input"
REPLY_NOT_KEPT = "the reply was cut off and not kept: the message is back in the input"
DOUBLE_ESCAPE_S = 0.8  # two Esc presses closer than this are one "Esc Esc"
QUIT_COMMANDS = frozenset({"exit", "quit"})  # the app's answer: quit, as Ctrl+Q


class ChatScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "abort_turn", "Stop turn", id="abort-turn"),
        # The input takes Ctrl+C itself (CV6); this one is for a focus elsewhere (the log).
        Binding("ctrl+c", "abort_turn", "Stop turn", id="interrupt-turn", show=False),
        Binding("ctrl+l", "focus_prompt", "Prompt", id="focus-prompt"),
        Binding("shift+tab", "cycle_mode", "Mode", id="cycle-mode", priority=True, show=False),
        Binding("ctrl+o", "toggle_output", "Output", id="toggle-output", show=False),
        # Shown only while a Bash command or subagent runs in the foreground (`check_action`).
        Binding("ctrl+b", "background_current", "Background", id="background-current"),
        # Idle, on an empty input: the second Esc in a row opens /rewind.
        Binding("escape", "rewind_keys", "Rewind", id="rewind-escape", show=False),
    ]

    def __init__(self) -> None:
        super().__init__(id="chat")
        self._assistants: dict[str, AssistantMessage] = {}
        self._tools: dict[str, ToolBlock] = {}
        self._shells = ShellBlocks()
        self._last_escape = 0.0
        # The foreground work Ctrl+B would move to the background (None: nothing to move).
        self._foreground: str | None = None
        # Sent while the session was still opening: sent, in order, once it is up.
        self._waiting: list[str] = []

    @property
    def wave(self) -> WaveApp:
        return cast("WaveApp", self.app)

    def compose(self) -> ComposeResult:
        log = ChatLog(id="chat-log")
        with log:
            yield StartPanel(id="start-panel")
        yield NewOutputMarker(log, id="new-output")
        yield TaskPanel()
        yield Static("", markup=False, id="queue")
        yield StatusLine(id="status")
        yield CommandPopup(id="command-popup")
        yield HistoryInput(placeholder=PROMPT_PLACEHOLDER, id="prompt")
        yield Footer()

    def on_resize(self, _event: events.Resize) -> None:
        self.call_after_refresh(self._fit_placeholder)

    def _fit_placeholder(self) -> None:
        for prompt in self.query("#prompt").results(HistoryInput):  # none once closing
            width = prompt.content_size.width - 1  # the cursor's cell at the end
            if width > 0:
                prompt.placeholder = prompt_placeholder(width)

    async def on_mount(self) -> None:
        self.query_one("#queue").display = False
        prompt = self.query_one("#prompt", HistoryInput)
        prompt.popup = self.query_one("#command-popup", CommandPopup)
        prompt.interrupt = self._interrupt
        prompt.scroll_chat = self._scroll_chat
        if self.wave.session_ready:
            self.session_ready()
        else:
            prompt.hold_keys()  # until the session is up, what needs it waits (UX14)
            self.refresh_status()  # "starting…": the input takes what is typed meanwhile
        prompt.focus()

    # req: UX14
    def session_ready(self) -> None:
        """The session is up (at mount, or after the first frame): the input completes,
        recalls and saves through it, the log hears its events, the status shows it."""
        session = self.wave.session
        prompt = self.query_one("#prompt", HistoryInput)
        prompt.recall = session.unqueue_last
        prompt.completer = self._complete
        prompt.save_to(session.input.remember)
        prompt.image_paste = session.input.pasted_image
        prompt.clipboard_image = self._clipboard_image
        popup = self.query_one("#command-popup", CommandPopup)
        popup.choices = session.input.command_choices
        popup.follow(prompt.text)  # a `/command` typed while the session opened
        self.query_one("#chat-log", ChatLog).watch_output(session.subscribe)
        self.refresh_status()
        prompt.release_keys()
        self.call_after_refresh(self._start_loading_history)  # not shown in the first frame

    # req: UX14
    async def send_waiting(self) -> None:
        """What was sent while the session opened, handled now as if sent now, in order; an
        agent still starting (a local model) gets it when it is up, one that could not start
        leaves it in the input. Nothing typed is lost."""
        if not self.wave.session_ready or self.wave.agent_starting or not self._waiting:
            return
        if not self.wave.session.available:
            waiting, self._waiting = self._waiting, []
            self._show_queue(())
            self._return_to_input("\n".join(waiting))
            await self._append(NoticeLine(PROMPT_RETURNED))
            return
        while self._waiting:
            text = self._waiting.pop(0)
            self._show_queue(tuple(self._waiting))
            await self._submit(text)

    # req: FH10
    def _prompt_returned(self) -> str:
        """What a failed prompt's notice says: a reply whose stream broke stays on screen as
        far as it came, but the conversation does not keep it."""
        cut = [block for block in self._assistants.values() if block.has_text]
        self._assistants.clear()
        return REPLY_NOT_KEPT if cut else PROMPT_RETURNED

    async def _clipboard_image(self) -> str | None:
        pasted = await self.wave.session.input.paste_clipboard_image()
        if pasted.problem is not None:
            await self._append(NoticeLine(pasted.problem, "image"))
        return pasted.reference

    def _start_loading_history(self) -> None:
        self.run_worker(self._load_history(), group="history", exit_on_error=False)

    def _complete(self, text: str) -> Completion | None:
        found = self.wave.session.input.complete_path(text)
        return Completion(*found) if found is not None else None

    async def _load_history(self) -> None:
        prompt = self.query_one("#prompt", HistoryInput)
        past = await self.wave.session.input.history()
        typed = list(prompt.past)  # sent already: maybe written to the file before this read
        if typed and past[-len(typed) :] == typed:
            past = past[: -len(typed)]
        prompt.past[:0] = past

    # req: UX3
    async def show_restored(self) -> None:
        """Show the conversation the session restored (--continue / --resume), at the end."""
        messages = neutralise_value(self.wave.session.messages())
        if messages:
            self.query("#start-panel").remove()
        await self._restore(messages)
        self.query_one("#chat-log", VerticalScroll).scroll_end(animate=False)

    def _show_first_run(self, show: bool) -> None:
        """The how-to-configure panel, mounted only when needed (Markdown is costly to build);
        a broken settings file is named above it (UX6)."""
        logs = self.query("#chat-log").results(VerticalScroll)
        log = next(logs, None)
        if log is None:  # the screen is closing (an agent event can still arrive): nothing to show
            return
        panels = self.query("#first-run")
        if show and not panels:
            from textual.widgets import Markdown  # with the panel: see chat_items.py

            log.mount(Markdown(FIRST_RUN_HELP, id="first-run"), before=0)
        for panel in panels:
            panel.display = show
        self._show_settings_problems(self.wave.session.settings.problems() if show else [])

    # req: UX6
    def _show_settings_problems(self, problems: list[str]) -> None:
        text = "\n".join(f"Settings error: {line}" for line in problems)
        found = self.query("#settings-problems")
        if problems and not found:
            error = ErrorLine(text)
            error.id = "settings-problems"
            self.query_one("#chat-log", VerticalScroll).mount(error, before=0)
        for line in found:
            line.display = bool(problems)
            if problems and isinstance(line, Static):
                line.update(text)

    # req: UX14
    def show_starting(self, text: str | None) -> None:
        """The "starting the local model…" line at the top of the chat (None: remove it)."""
        if not self.is_mounted:
            return
        found = self.query("#starting")
        if text is None:
            found.remove()
            self.refresh_status()
            return
        if found:
            cast(Static, found.first()).update(text)
        else:
            line = NoticeLine(text)
            line.id = "starting"
            self.query_one("#chat-log", VerticalScroll).mount(line, before=0)
        self.refresh_status()

    async def show_error(self, text: str) -> None:
        await self._append(ErrorLine(text))

    def on_screen_resume(self) -> None:
        self.refresh_status()

    # -- status --------------------------------------------------------------------------------
    def refresh_status(self, status: AgentStatus | None = None) -> None:
        app = self.wave
        if not app.session_ready:
            self._show_opening()
            return
        status = status or app.session.status()
        self._show_first_run(not status.configured and not app.agent_starting)
        for panel in self.query("#start-panel").results(StartPanel):  # until the first message
            panel.display = status.configured or app.agent_starting
            panel.show_info(
                app.paths.project_root,
                app.paths.home,
                self._model_label(status),
                worktree=status.worktree,
            )
        self.query_one("#status", StatusLine).update_info(
            model=self._model_label(status),
            context_tokens=status.context_tokens,
            cache_percent=status.cache_hit_percent,
            auto_memory=status.auto_memory,
            frequency=status.auto_memory_frequency,
            turns_until_next=status.turns_until_extraction,
            memory_writes=status.memory_writes,
            busy=status.busy,
            background=status.background,
            context_window=status.context_window,
            mode=status.permission_mode,
            worktree=status.worktree,
            starting=False,
        )
        self.refresh_bindings()

    # req: UX14
    def _show_opening(self) -> None:
        """Before the session is up, only what is known: the project and "starting" (the
        model, the mode and the memory settings come with the settings)."""
        app = self.wave
        for panel in self.query("#start-panel").results(StartPanel):
            panel.show_info(app.paths.project_root, app.paths.home, app.model_label or STARTING)
        self.query_one("#status", StatusLine).update_info(starting=True)
        self.refresh_bindings()

    # req: UX14
    def _model_label(self, status: AgentStatus) -> str | None:
        app = self.wave
        if app.agent_starting and app.model_label:
            return f"{app.model_label} (starting)"
        return (app.model_label or status.model) if status.configured else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("rewind_keys", "abort_turn") and not self.wave.session_ready:
            return False  # nothing runs yet, nothing to rewind
        if action == "rewind_keys":
            session = self.wave.session
            if not session.available or self.query_one("#prompt", HistoryInput).text:
                return False
            status = session.status()
            return not (status.busy or status.queue)
        if action == "background_current":
            return self._foreground is not None
        if action == "abort_turn":
            # Shown, and acting, only while there is a turn to stop (else Ctrl+C falls through
            # to the app, and Esc to whatever else binds it).
            status = self.wave.session.status()
            return bool(status.busy or status.queue)
        return True

    # -- actions -------------------------------------------------------------------------------
    # req: CV6
    # req: UX19
    def action_abort_turn(self) -> None:
        """Esc or Ctrl+C during a turn: stop it; what waited behind it goes back to the input,
        one message a line, to edit or send again (as Claude Code does): nothing typed is lost."""
        session = self.wave.session
        queued = session.status().queue
        session.clear_queue()
        session.abort()
        if queued:
            self._return_to_input("\n".join(queued))
            log = self.query_one("#chat-log", ChatLog)
            count = len(queued)
            log.mount(NoticeLine(f"{count} queued message{'s' * (count > 1)} back in the input"))
            log.follow()

    # req: SX9
    async def action_background_current(self) -> None:
        """Ctrl+B: the Bash command or subagent running in the foreground moves to the
        background (its tool call answers with the task id, the turn goes on)."""
        await self.wave.session.background_current_task()

    def _return_to_input(self, text: str) -> None:
        """`text` into the input, after what is being typed there."""
        prompt = self.query_one("#prompt", HistoryInput)
        prompt.value = f"{prompt.value}\n{text}" if prompt.value.strip() else text
        prompt.move_cursor(prompt.document.end)

    # req: RW2
    def action_rewind_keys(self) -> None:
        """Esc Esc on an empty input, nothing running: the /rewind dialog."""
        now = time.monotonic()
        if now - self._last_escape <= DOUBLE_ESCAPE_S:
            self._last_escape = 0.0
            self.wave.open_command_screen("rewind", "")
        else:
            self._last_escape = now

    def put_back(self, text: str) -> None:
        """A rewound message's text, back in the input to edit and send again."""
        prompt = self.query_one("#prompt", HistoryInput)
        prompt.value = text
        prompt.focus()

    def _interrupt(self) -> bool:
        """Ctrl+C in the input: True when a turn was there to stop."""
        stop = bool(self.check_action("abort_turn", ()))
        if stop:
            self.action_abort_turn()
        return stop

    # req: CV9
    def _scroll_chat(self, key: str) -> bool:
        prompt = self.query_one("#prompt", HistoryInput)
        return self.query_one("#chat-log", ChatLog).take_key(key, not prompt.text)

    # req: UX17
    def action_cycle_mode(self) -> None:
        if self.wave.session_ready and self.wave.session.available:
            self.wave.session.permissions.cycle_mode()

    def action_toggle_output(self) -> None:
        """Ctrl+O: open or close the newest Thinking or tool output of the chat."""
        blocks = shown_expandables(self.query_one("#chat-log", VerticalScroll))
        if blocks:
            blocks[-1].collapsed = not blocks[-1].collapsed

    def on_history_input_quit_requested(self, event: HistoryInput.QuitRequested) -> None:
        if event.confirmed:
            self.run_worker(self.wave.action_quit(), group="quit-request")
        else:
            self.notify("Press Ctrl+C again to quit", timeout=3)

    def action_focus_prompt(self) -> None:
        self.query_one("#prompt", HistoryInput).focus()

    # req: CV1
    # req: CV9
    async def on_history_input_submitted(self, event: HistoryInput.Submitted) -> None:
        """One sent message (the input has cleared itself); messages are handled one at a time,
        in the order they were sent."""
        text = event.value
        self.query("#start-panel").remove()
        self.query_one("#chat-log", ChatLog).follow()
        if not self.wave.session_ready or self._waiting:
            self._waiting.append(text)  # the session is opening: sent once it is up (UX14)
            self._show_queue(tuple(self._waiting))
            return
        await self._submit(text)

    # req: FH13
    async def _submit(self, text: str) -> None:
        from wave_tui.session.facade import parse_command  # loaded with the session

        if text.startswith("#") and text.lstrip("#").strip() and not text.startswith("##"):
            self.wave.quick_add(text[1:].strip())
            return
        command = parse_command(text)
        if command is not None and command.name == "memory":
            self.wave.switch_mode("memory")  # the browser is the app's answer to /memory
            return
        if command is not None and command.name in QUIT_COMMANDS:
            await self.wave.action_quit()  # as Ctrl+Q: an extraction's writes finish first
            return
        if command is not None and self.wave.open_command_screen(command.name, command.args):
            return
        session = self.wave.session
        if not session.available and self.wave.agent_starting:
            await self._append(ErrorLine("The model is still starting; send again in a moment."))
            return
        if not session.available:
            await self._append(ErrorLine("The agent could not start; see the message above."))
            return
        await session.send(text)

    # -- `/` completion (UX15) -----------------------------------------------------------------
    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.id == "prompt":
            self.query_one("#command-popup", CommandPopup).follow(event.text_area.text)

    async def reload_conversation(self) -> None:
        """Show the session's conversation afresh (after `/resume` switched it)."""
        await self.query_one("#chat-log", VerticalScroll).remove_children()
        self._assistants.clear()
        self._tools.clear()
        await self._restore(neutralise_value(self.wave.session.messages()))
        self.refresh_status()

    # -- agent events --------------------------------------------------------------------------
    # req: UX8
    async def apply(self, event: ev.AgentEvent) -> None:
        """Show one service event. Called in order, from the app's message loop."""
        from wave_tui.agent import events as ev  # loaded by then: the session sent the event
        from wave_tui.session.facade import shell_run_of, shown_text

        match event:
            case ev.UserMessageAdded(message=message) if not message.is_meta:
                if shell_run_of(message) is None:  # a `!cmd` run has its own block
                    await self._append(UserMessage(shown_text(message)))
            case ev.AssistantStarted(message_id=message_id):
                started = AssistantMessage(message_id)
                self._assistants[message_id] = started
                await self._append(started)
            case ev.TextDelta(message_id=message_id, text=text):
                if block := self._assistants.get(message_id):
                    await block.append_text(text)
            case ev.ReasoningDelta(message_id=message_id, text=text):
                if block := self._assistants.get(message_id):
                    await block.append_reasoning(text)
            case ev.AssistantFinished(message=message):
                if block := self._assistants.pop(message.id, None):
                    await block.finish(message.content)
            case ev.ToolStarted(call_id=call_id, name=name, key_arg=key_arg):
                running = ToolBlock(call_id, name, show_key_arg(key_arg, self.wave.paths))
                self._tools[call_id] = running
                await self._append(running)
            case ev.ToolFinished(call_id=call_id, name=name, summary=summary, content=content):
                if tool := self._tools.pop(call_id, None):
                    output = shown_tool_output(name, content, self.wave.paths)
                    tool.finish(summary, output, event.is_error, event.diff)
            case ev.ShellStarted() | ev.ShellOutput() | ev.ShellFinished():
                await self._shells.apply(event, self._append)
            case ev.BackgroundCommandFinished(task_id=task_id, label=label, exit_code=code):
                line = background_finished(task_id, label, code)
                await self._append(NoticeLine(line, "background"))
            case ev.Notice(kind="session", text=text):  # a new conversation (/clear) began
                await self._clear_log()
                await self._append(NoticeLine(text, "session"))
            case ev.Notice(kind=kind, text=text):
                await self._append(NoticeLine(text, kind))
            case ev.ErrorOccurred(message=message):
                await self._append(ErrorLine(message))
            case ev.PromptFailed(text=text):  # back in the input, to edit and send again
                self._return_to_input(text)
                await self._append(NoticeLine(self._prompt_returned()))
            case ev.TurnEnded(status="aborted"):
                await self._append(NoticeLine("interrupted — the turn was stopped"))
            case ev.QueueChanged(queued=queued):
                self._show_queue(queued)
            case ev.CommandAnswered(text=text, is_error=is_error):
                await self._append(CommandOutputBlock("command", text, is_error))
            case ev.StatusChanged(status=status):
                self.refresh_status(status)
            case ev.ForegroundChanged(label=label):
                self._foreground = label
                self.refresh_bindings()

    async def _clear_log(self) -> None:
        log = self.query_one("#chat-log", VerticalScroll)
        await log.remove_children(
            [child for child in log.children if child.id not in KEPT_ON_CLEAR]
        )
        self._assistants.clear()
        self._tools.clear()
        self._shells.running.clear()

    async def _append(self, widget: Widget) -> None:
        await self.query_one("#chat-log", VerticalScroll).mount(widget)

    def _show_queue(self, queued: tuple[str, ...]) -> None:
        panel = self.query_one("#queue", Static)
        panel.display = bool(queued)
        lines = [f"queued: {one_line(text)}" for text in queued]
        if len(lines) > QUEUE_LINES:  # the panel's height: say how many more wait
            lines[QUEUE_LINES - 1 :] = [f"… and {len(queued) - QUEUE_LINES + 1} more queued"]
        panel.update("\n".join(lines))

    async def _restore(self, messages: list[Message]) -> None:
        """Show a resumed session (--continue / --resume) as the live run showed it."""
        from wave_tui.tui.widgets.restored import show_messages  # with the session

        await show_messages(messages, self._append, self.wave.paths)
