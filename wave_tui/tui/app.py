"""The wave app: chat, memory browser and settings over one `AgentSession` (U1).

The app reaches the agent, memory and settings only through the session and its events
(`StatusChanged`, `MemoryChanged`, `ExtractionFinished`, ...). `make_app` is the single
factory used by `wave` and by every test. `wave` paints the chat before the session exists
(`SessionOpening`): settings, memory, tools and the agent are built after the first frame, so
nothing of them is imported before it; the agent's events, the facade and the dialogs load
with the session.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from wave_tui.config.clock import system_clock
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.terminal_text import neutralise_value
from wave_tui.tui.command_screens import CommandScreens
from wave_tui.tui.css_state import CssState, css_state
from wave_tui.tui.format import one_line, show_path
from wave_tui.tui.messages import AgentEventPosted
from wave_tui.tui.review_count import ReviewCount
from wave_tui.tui.screens.chat import ChatScreen
from wave_tui.tui.widgets.background_indicator import BackgroundIndicator
from wave_tui.tui.widgets.status_line import NARROW

if TYPE_CHECKING:
    from wave_tui.agent import events as ev
    from wave_tui.config.settings import SettingsStore
    from wave_tui.session.facade import AgentSession
    from wave_tui.session.types import AddResult, AgentService, MemoryScope
    from wave_tui.tui.screens.memory import MemoryScreen
    from wave_tui.tui.screens.settings import SettingsScreen

Progress = Callable[[str], None]


def _settings_screen() -> SettingsScreen:
    from wave_tui.tui.screens.settings import SettingsScreen

    return SettingsScreen()


# req: UX14
@record
class PendingAgent:
    """An agent that needs seconds to start (a local model): the app opens at once and runs
    `start` in a thread, showing each progress line; `start` returns the service and a notice."""

    first_line: str
    start: Callable[[Progress], tuple[AgentService, str | None]]


# req: UX14
@record
class Opened:
    """The session `SessionOpening.open` made: with the agent, or without one (it could not
    start: `startup_error` says why) and maybe a local model still to start (`pending`)."""

    session: AgentSession
    startup_error: str | None = None
    model_label: str | None = None
    pending: PendingAgent | None = None


class StartupFailed(Exception):
    """What `SessionOpening.open` raises when `wave` cannot run at all: the app ends with
    this message (on stderr) and `exit_code`."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# req: UX14
@record
class SessionOpening:
    """How `wave` opens its session after the first frame: `open` runs in a thread (settings,
    memory, tools, the agent) while the chat is shown and takes typing; `ready` runs on the
    loop once the session is up (the end of start-up)."""

    paths: WavePaths
    open: Callable[[], Opened]
    ready: Callable[[], None]


EARLY_KEY_WAITS = 100  # 50 ms each: how long keys typed at start wait for the input's focus


# req: U1
class WaveApp(App[None]):
    # The first frame shows the chat: its sheets parse before it, the other screens' sheets
    # right after it (`_load_later_css`), so a screen's first showing neither waits for a parse
    # nor restyles every node (its own CSS_PATH would). dialogs.tcss
    # too: the context view and the plan and question dialogs use its classes without a
    # CSS_PATH of their own.
    CSS_PATH = ["app.tcss", "screens/chat.tcss"]
    LATER_CSS = (
        "screens/memory.tcss",
        "screens/memory_runs.tcss",
        "screens/settings.tcss",
        "screens/dialogs.tcss",
        "screens/workflows.tcss",
    )
    TITLE = "wave"
    DEFAULT_MODE = "chat"
    BINDINGS = [
        Binding("f1", "switch_mode('chat')", "Chat", id="show-chat"),
        Binding("f2", "switch_mode('memory')", "Memory", id="show-memory"),
        Binding("f3", "switch_mode('settings')", "Settings", id="show-settings"),
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        # Ctrl+Z is the terminal's job control (as in a shell, Claude Code): `fg` resumes. The
        # input's undo moves to Ctrl+_ (`HistoryInput`).
        Binding("ctrl+z", "suspend_process", "Suspend", id="suspend", show=False, priority=True),
    ]

    def __init__(
        self,
        session: AgentSession | None,
        *,
        opening: SessionOpening | None = None,
        watch_settings: bool = False,
        startup_error: str | None = None,
        startup_notice: str | None = None,
        model_label: str | None = None,
        pick_session: bool = False,
        pending: PendingAgent | None = None,
    ) -> None:
        super().__init__()
        self.command_screens = CommandScreens(self)
        self._pick_session = pick_session  # `wave --resume` without an id
        self._pending = pending
        self.model_label = model_label  # e.g. "local: gemma-3-270m (demo quality)"
        self._startup_notice = startup_notice
        self._session = session
        self._opening = opening
        self._mode_after_opening: str | None = None  # F2 / F3 pressed while it opened
        self._early_keys: list[events.Key] | None = []  # keys read before the first frame
        self._early_waits = 0
        if session is not None:
            self.paths: WavePaths = session.paths
            self.clock: Callable[[], datetime] = session.clock
        elif opening is not None:
            self.paths = opening.paths
            self.clock = system_clock
        else:
            raise ValueError("the app needs a session or a way to open one")
        self.chat_screen = ChatScreen()
        self.add_mode("chat", self._first_screen)
        self.add_mode("memory", self._memory_screen)  # the other screens load when first shown
        self._prepared_memory: MemoryScreen | None = None  # built after the first frame
        self.add_mode("settings", _settings_screen)
        self._watch_settings = watch_settings
        self._startup_error = startup_error
        self._unsubscribe: list[Callable[[], None]] = []
        self._quitting = False
        self._css_applied: CssState | None = None
        self.review = ReviewCount(self)  # memory proposals waiting in the review inbox
        self.sub_title = self.paths.project_root.name

    def _first_screen(self) -> ChatScreen:
        # Textual restyles the whole app when a mode's screen is made (a full reparse of every
        # sheet) unless the screen is marked current. The chat has no sheet of its own and
        # nothing is styled yet: each of its widgets is styled from the sheets as it mounts.
        self.chat_screen._css_update_count = self._css_update_count
        return self.chat_screen

    # -- lifecycle -----------------------------------------------------------------------------
    @property
    def session(self) -> AgentSession:
        """The session; RuntimeError while it is still opening (`session_ready`)."""
        if self._session is None:
            raise RuntimeError("the session is still opening")
        return self._session

    @property
    def session_ready(self) -> bool:
        return self._session is not None

    # req: CV1
    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self._early_keys is not None:
                if not self._input_up():
                    # Typed before the chat's input was there to take it (straight after
                    # `wave` Enter): kept, and replayed in order ahead of any later key.
                    self._early_keys.append(event)
                    return
                await self._replay_early_keys()
            # Before Textual routes a key to the dialog on top: a key the user typed for
            # the message goes on into the input (typed_ahead).
            if self._typed_through(event):
                return
        await super().on_event(event)

    def _input_up(self) -> bool:
        """The chat's input has the focus, or a picker over the chat does (at start the chat
        log has it for a moment, and a key there was lost)."""
        if not self.chat_screen.is_mounted or self.focused is None:
            return False
        return self.screen is not self.chat_screen or self.focused.id == "prompt"

    async def _flush_early_keys(self) -> None:
        """Keys kept before the input was up, once it is (no later key may come to flush
        them: "hello" Enter, then nothing)."""
        if self._early_keys is None:
            return
        self._early_waits += 1
        # Bounded: keys never wait longer than a few seconds, and an idle app never polls.
        if not self._input_up() and self._early_waits < EARLY_KEY_WAITS:
            self.set_timer(0.05, self._flush_early_keys)
            return
        await self._replay_early_keys()

    async def _replay_early_keys(self) -> None:
        from wave_tui.tui.early_keys import held_from_the_start

        keys, self._early_keys = self._early_keys or [], None
        cooked = held_from_the_start()
        for key in keys:
            if cooked and key.key == "ctrl+j":
                # Typed while the terminal was still in its cooked mode (before `wave` had
                # started at all): Enter arrived as a line feed, which reads as Ctrl+J.
                await self.on_event(events.Key("enter", "\r"))
            else:
                await self.on_event(events.Key(key.key, key.character))

    def _typed_through(self, event: events.Key) -> bool:
        from wave_tui.tui.typed_ahead import type_through
        from wave_tui.tui.widgets.history_input import HistoryInput

        prompts = self.chat_screen.query("#prompt") if self.chat_screen.is_mounted else ()
        prompt = next((p for p in prompts if isinstance(p, HistoryInput)), None)
        return prompt is not None and type_through(self.screen, prompt, event)

    async def on_mount(self) -> None:
        self.call_after_refresh(self._flush_early_keys)  # once the chat and its input are up
        from wave_tui.tui.early_keys import hand_over

        hand_over(self._driver)
        self.screen_change_signal.subscribe(self, self._show_background)
        self.screen_change_signal.subscribe(self, self.review.screen_changed)
        self.call_after_refresh(self._load_later_css)
        if self._opening is not None:
            # After the first frame, which shows the chat and takes typing meanwhile.
            self.call_after_refresh(self._start_opening, self._opening)
            return
        await self._session_up()

    def _start_opening(self, opening: SessionOpening) -> None:
        self.run_worker(self._open_session(opening), group="startup", name="opening the session")

    # req: UX14
    async def _open_session(self, opening: SessionOpening) -> None:
        try:
            opened = await asyncio.to_thread(opening.open)
        except StartupFailed as exc:
            self.exit(return_code=exc.exit_code, message=str(exc))
            return
        self._session = opened.session
        self._opening = None
        self._startup_error = opened.startup_error
        self.model_label = opened.model_label or self.model_label
        self._pending = opened.pending
        if self.chat_screen.is_mounted:
            self.chat_screen.session_ready()
        await self._session_up()
        opening.ready()
        if self._mode_after_opening is not None:
            self.switch_mode(self._mode_after_opening)
        if self.chat_screen.is_mounted:
            await self.chat_screen.send_waiting()

    async def action_switch_mode(self, mode: str) -> None:
        self._show_mode(mode)

    def _show_mode(self, mode: str) -> None:
        """F1-F3. The memory browser and the settings need the session: asked for while it
        opens, they show once it is up."""
        if self.session_ready or mode == "chat":
            self._mode_after_opening = None
            self.switch_mode(mode)
        else:
            self._mode_after_opening = mode

    async def _session_up(self) -> None:
        self._unsubscribe.append(self.session.subscribe(self._forward))
        if self._pending is not None:
            self.chat_screen.show_starting(self._pending.first_line)
            self.run_worker(self._start_pending(self._pending), group="startup")
        if not await self._start_session():
            return
        if self.chat_screen.is_mounted:
            await self.chat_screen.show_restored()
        self.session.conversation_shown()
        if self._startup_error:
            self.notify(self._startup_error, severity="error", markup=False, timeout=30)
        if self._startup_notice:
            self.notify(self._startup_notice, markup=False, timeout=20)
        self.command_screens.ask_trust()
        if self._pick_session:
            self.command_screens.pick_session()
        self.call_after_refresh(self._warm_memory_catalog)
        self.call_after_refresh(self.review.count)
        if self._watch_settings:
            # The watcher (watchfiles, anyio) starts after the first frame: nothing there waits.
            self.call_after_refresh(self._start_watching_settings)

    # req: FH2
    async def _start_session(self) -> bool:
        """Restore the session and enter `--worktree NAME` before the chat shows anything of
        it; False when the app ends instead (one line, exit 1)."""
        try:
            self.session.start()
        except FileNotFoundError as exc:
            self.exit(return_code=1, message=f"wave: {exc}")
            return False
        problem = await self.session.enter_start_worktree()
        if problem is not None:
            self.exit(return_code=1, message=f"wave: {problem}")
            return False
        return True

    def _warm_memory_catalog(self) -> None:
        # Read once after the first frame, off the loop: F2 then finds the unchanged files in
        # the session's catalog cache and only paints (opening the browser does no file reads).
        self.run_worker(
            self._warm_memory(),
            group="memory-warm",
            exit_on_error=False,
            name="reading the memory catalog",
        )

    async def _warm_memory(self) -> None:
        await self.session.memory.entries()
        # Then the browser's widgets: by now the start-up's own work is done (the catalog was
        # read in a thread meanwhile), so building them does not hold up what it shows.
        self._prepare_memory_screen()

    # req: SP4
    def _memory_screen(self) -> MemoryScreen:
        """The browser for F2: the one built after the first frame when it is ready."""
        screen, self._prepared_memory = self._prepared_memory, None
        if screen is not None:
            return screen
        from wave_tui.tui.screens.memory import MemoryScreen

        return MemoryScreen()

    # req: SP4
    def _prepare_memory_screen(self) -> None:
        """Compose and style the browser's widgets once the first frame is out, so F2 only
        fills and paints it: mounting them at F2 (each widget styled, its default CSS parsed)
        was half of its opening. It loads its entries when first shown."""
        if "memory" in self._screen_stacks or self._prepared_memory is not None:
            return
        from wave_tui.tui.screens.memory import MemoryScreen

        self._prepared_memory = MemoryScreen()
        self._register(self, self._prepared_memory)

    def _load_later_css(self) -> None:
        here = Path(__file__).parent
        for name in self.LATER_CSS:
            self.stylesheet.read(here / name)
        self.refresh_css(animate=False)

    def _start_watching_settings(self) -> None:
        self.run_worker(
            self._watch(),
            group="settings-watch",
            exit_on_error=False,
            name="watching settings files",
        )

    def refresh_css(self, animate: bool = True) -> None:
        state = css_state(self)
        if state == self._css_applied:
            return  # nothing changed since the last restyle: see css_state.py
        super().refresh_css(animate)
        self._css_applied = state

    @property
    def agent_starting(self) -> bool:
        """The session is still opening, or its agent (a local model) still starting."""
        return self._session is None or self._pending is not None

    async def _start_pending(self, pending: PendingAgent) -> None:
        started = time.monotonic()
        line = pending.first_line

        def show() -> None:
            seconds = (
                "" if self.animation_level == "none" else f" {time.monotonic() - started:.0f}s"
            )
            self.chat_screen.show_starting(line + seconds)

        def progress(text: str) -> None:
            nonlocal line
            line = text
            self.call_from_thread(show)

        ticker = self.set_interval(1, show)
        try:
            service, notice = await asyncio.to_thread(pending.start, progress)
        except Exception as exc:
            ticker.stop()
            self._pending = None
            self.chat_screen.show_starting(None)
            await self.chat_screen.show_error(f"The agent could not start: {exc}")
            await self.chat_screen.send_waiting()  # back in the input: nothing typed is lost
            return
        ticker.stop()
        self._pending = None
        self.session.attach(service)
        self.chat_screen.show_starting(None)
        if not await self._start_session():
            return
        await self.chat_screen.show_restored()
        if notice:
            self.notify(notice, markup=False, timeout=20)
        await self.chat_screen.send_waiting()

    # req: UX9
    async def action_quit(self) -> None:
        """Quit; an extraction in flight finishes its writes first, and the user sees why (C4)."""
        if not self.session_ready or not self.session.status().background_busy:
            self.exit()
            return
        if self._quitting:
            self.session.cancel_background()
            self.notify("Quitting without waiting: the extraction is cancelled", timeout=10)
            await self.session.close()  # the cancelled run still writes its audit record
            self.exit()
            return
        self._quitting = True
        self.notify(
            "Finishing the memory extraction before quitting… (Ctrl+Q again: quit without waiting)",
            timeout=60,
        )
        self.run_worker(self._finish_then_exit(), group="quit")

    async def _finish_then_exit(self) -> None:
        await self.session.close()
        self.exit()

    async def on_unmount(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        if self._session is not None:
            await self._session.close()

    def _forward(self, event: ev.AgentEvent) -> None:
        # Every text an event carries came from the model, a tool, a server or a file: shown
        # only neutralised (a control sequence must not retitle, clear or rewrite the screen).
        self.post_message(AgentEventPosted(neutralise_value(event)))

    async def _watch(self) -> None:
        async for _settings in self.session.settings.watch():
            # The session turns each change into a StatusChanged event; servers it names
            # since may wait for the user's trust.
            self.command_screens.ask_trust_for_new()

    # -- service events ------------------------------------------------------------------------
    async def on_agent_event_posted(self, message: AgentEventPosted) -> None:
        from wave_tui.agent import events as ev  # loaded by then: the session sent the event
        from wave_tui.tui.asks_and_progress import (
            ASK_OR_PROGRESS_EVENTS,
            apply_ask_or_progress,
            ask_permission,
        )

        event = message.event
        if isinstance(event, ev.PermissionRequested):
            await ask_permission(self, self.session, self.paths, event)
            return
        if isinstance(event, ASK_OR_PROGRESS_EVENTS):
            await apply_ask_or_progress(self, self.chat_screen, event)
            return
        if isinstance(event, ev.ExtractionFinished):
            self._report_extraction(event)
            self.review.announce()
        elif isinstance(event, ev.MemoryChanged):
            self.review.count()  # an accepted proposal leaves the inbox
        if isinstance(event, ev.TurnEnded) and event.status != "aborted":
            self._ring_if_away()
        # The fork writes files without a MemoryChanged of its own: refresh on its end (UX7).
        if isinstance(event, ev.MemoryChanged | ev.ExtractionFinished):
            for screen in self._memory_screens():
                screen.action_reload()
        if self.chat_screen.is_mounted:
            await self.chat_screen.apply(event)
        if isinstance(event, ev.StatusChanged):
            self._show_background()

    def on_resize(self) -> None:
        self._show_background()

    # req: UX13
    def _show_background(self, _screen: Screen[Any] | None = None) -> None:
        """The background-work indicator on the active screen (the chat's status line shows
        it itself when the terminal is wide enough)."""
        screen = self.screen
        if isinstance(screen, ModalScreen):
            return
        found = screen.query(BackgroundIndicator)
        indicator = found.first() if found else BackgroundIndicator()
        if not found:
            screen.mount(indicator)
        background = self.session.status().background if self.session_ready else None
        if screen is self.chat_screen and self.size.width >= NARROW:
            background = None
        indicator.show(background)

    # req: UX19
    def _ring_if_away(self) -> None:
        """A terminal bell when a turn ends while the terminal is not focused (settings
        `notifications`, on by default)."""
        if not self.app_focus and self.session.settings.current().notifications:
            self.bell()

    def _report_extraction(self, event: ev.ExtractionFinished) -> None:
        """A toast when the extraction changed memory or failed ("memory updated: x.md")."""
        if event.cancelled:
            self.notify("memory extraction cancelled", title="Memory", severity="warning")
        elif event.error is not None:
            self.notify(
                f"memory extraction failed: {event.error}",
                title="Memory",
                severity="warning",
                markup=False,
            )
        elif event.written:
            self.notify(f"memory updated: {', '.join(event.written)}", title="Memory", markup=False)

    def open_command_screen(self, name: str, args: str) -> bool:
        """`/model`, `/resume`, `/permissions`: a picker or screen (True: handled)."""
        return self.command_screens.open(name, args)

    # -- quick-add memory ----------------------------------------------------------------------
    def quick_add(self, text: str) -> None:
        project = show_path(self.session.memory.target("project"), self.paths)
        user = show_path(self.session.memory.target("user"), self.paths)

        def chosen(target: MemoryScope | None) -> None:
            if target is not None:
                self.run_worker(
                    self._add_memory(target, text),
                    group="memory-write",
                    exit_on_error=False,
                    name="saving a memory",
                )

        from wave_tui.tui.screens.dialogs import MemoryTargetDialog

        self.push_screen(MemoryTargetDialog(text, project, user), chosen)

    async def _add_memory(self, target: MemoryScope, text: str) -> None:
        from wave_tui.session.types import EntryError

        try:
            result = await self.session.memory.add(target, text)
        except EntryError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self._report_added(result, self.session.memory.target(target))

    def _report_added(self, result: AddResult, path: Any) -> None:
        where = show_path(path, self.paths)
        if result.added:
            self.notify(f"Saved to {where}", title="Memory", markup=False)
        else:
            self.notify(
                f"Already in {where}: {one_line(result.duplicate_of or '', 60)}",
                title="Duplicate memory",
                severity="warning",
                markup=False,
            )

    def _memory_screens(self) -> Iterable[MemoryScreen]:
        from wave_tui.tui.screens.memory import MemoryScreen

        for stack in self._screen_stacks.values():
            yield from (s for s in stack if isinstance(s, MemoryScreen))

    # -- workers and commands ------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.report_worker_failure(event)

    def report_worker_failure(self, event: Worker.StateChanged) -> None:
        """One place that turns a failed worker into a notification (screens forward here,
        as the message does not bubble)."""
        if event.state == WorkerState.ERROR:
            worker = event.worker
            self.notify(
                f"{worker.name or worker.group} failed: {worker.error}",
                severity="error",
                markup=False,
            )

    def show_context(self) -> None:
        """The `/context` report in a view (MX2)."""
        from wave_tui.tui.screens.context_view import ContextView

        if not self.session_ready:
            self.notify("The session is still starting: no context to report yet.")
            return
        report = self.session.context_report()
        if report is None:
            self.notify("The agent could not start: no context to report.", severity="warning")
            return
        self.push_screen(ContextView(report.render()))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield SystemCommand("Chat", "Talk to the agent", lambda: self._show_mode("chat"))
        yield SystemCommand(
            "Memory", "Browse, filter, edit and delete memories", lambda: self._show_mode("memory")
        )
        yield SystemCommand("Context", "What the next request costs, per source", self.show_context)
        yield SystemCommand(
            "Settings",
            "Auto memory, frequency, language, model",
            lambda: self._show_mode("settings"),
        )
        yield from super().get_system_commands(screen)


def make_app(
    settings: SettingsStore | None,
    service: AgentService | AgentSession | None,
    clock: Callable[[], datetime] | None = None,
    *,
    opening: SessionOpening | None = None,
    watch_settings: bool = False,
    startup_error: str | None = None,
    startup_notice: str | None = None,
    model_label: str | None = None,
    pick_session: bool = False,
    pending: PendingAgent | None = None,
) -> WaveApp:
    """The one factory for `wave` and the tests. `settings` defaults to the service's store;
    with `opening` (and no service) the session is opened after the first frame."""
    session: AgentSession | None = None
    if opening is None:
        from wave_tui.session.facade import AgentSession

        if isinstance(service, AgentSession):
            session = service
        else:
            session = AgentSession(service, store=settings, clock=clock or system_clock)
    return WaveApp(
        session,
        opening=opening,
        watch_settings=watch_settings,
        startup_error=startup_error,
        startup_notice=startup_notice,
        model_label=model_label,
        pick_session=pick_session,
        pending=pending,
    )
