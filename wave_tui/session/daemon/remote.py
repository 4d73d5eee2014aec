"""A daemon session seen from a front end (`wave --attach ID`, ACP `session/load`, the SDK's
`attach`): an `AgentSession` whose conversation runs in the daemon.

`join` attaches (the conversation so far, for `messages()`); `conversation_shown` then follows
the session's events as they happen, from the reply streaming at the attach on; `send`,
`abort` and the permission dialog's answers go to the daemon as `send`, `abort` and `respond`.
Closing detaches only: the session, and a turn it runs, go on in the daemon. What belongs to the
front end's own process (settings, the memory browser) is this machine's, as with any session.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.service import Approver, TurnResult
from wave_tui.agent.status import AgentStatus
from wave_tui.config.modes import PERMISSION_MODES, PermissionMode
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore
from wave_tui.llm.types import Message
from wave_tui.session.daemon.protocol import MAX_LINE_BYTES, DaemonState, decode, encode
from wave_tui.session.daemon.replies import reply_fields
from wave_tui.session.daemon.stream import decode_event, decode_messages
from wave_tui.session.facade import AgentSession

_BUSY_STATES: tuple[DaemonState, ...] = ("busy", "waiting")
ATTACHED = "attached to session {id}: quitting detaches, the session goes on"


class AttachError(RuntimeError):
    """The daemon session cannot be attached (no daemon, no such session): one line."""


# req: DM2
class RemoteSession(AgentSession):
    """A daemon session behind the facade the front ends know."""

    def __init__(
        self,
        daemon: WavePaths,
        session_id: str,
        *,
        store: SettingsStore,
        approver: Approver | None = None,
    ) -> None:
        super().__init__(None, store=store)
        self.session_id = session_id
        self._daemon = daemon
        # Who answers the daemon session's questions; None: a PermissionRequested event.
        self._approver = approver
        self._done = 0  # the daemon session's messages that have had their turn
        self._error: str | None = None
        self._moved = asyncio.Event()  # set on each of the daemon's news
        self._transcript: list[Message] = []
        self._state: DaemonState = "idle"
        self._mode: PermissionMode = "default"
        self._worktree: str | None = None
        self._model: str | None = None  # the model the daemon session uses
        self._question: tuple[int, asyncio.Future[ev.PermissionReply]] | None = None
        self._stream: asyncio.StreamWriter | None = None
        self._reader: asyncio.StreamReader | None = None
        self._partial: tuple[str, str] | None = None  # (id, text so far) of the reply at the attach
        self._tasks: set[asyncio.Task[Any]] = set()
        self.detached = asyncio.Event()  # the stream ended (detached, or the session destroyed)
        self.destroyed = False

    # -- joining -------------------------------------------------------------------------------
    async def join(self) -> None:
        """Attach: the conversation so far. The events from that instant on wait (in the
        socket, nothing lost) for `conversation_shown`. AttachError when the daemon or the
        session is not there."""
        try:
            reader, writer = await asyncio.open_unix_connection(
                str(self._daemon.daemon_socket), limit=MAX_LINE_BYTES
            )
        except OSError as exc:
            raise AttachError("no daemon is running (wave daemon create starts one)") from exc
        writer.write(encode({"op": "attach", "id": self.session_id}))
        await writer.drain()
        line = await reader.readline()
        hello = decode(line) if line else {}
        if not hello.get("ok"):
            writer.close()
            raise AttachError(str(hello.get("error") or "the daemon did not answer"))
        self._stream = writer
        self._transcript = decode_messages(hello.get("transcript"))
        session = hello.get("session") or {}
        self._worktree = session.get("worktree")
        self._news(hello.get("news") or {})
        partial = hello.get("partial")
        if isinstance(partial, dict) and partial.get("id"):
            self._partial = (str(partial["id"]), str(partial.get("text", "")))
        self._reader = reader

    def conversation_shown(self) -> None:
        """The front end has shown `messages()`: the live events follow, after it."""
        reader, self._reader = self._reader, None
        if reader is None:
            return
        self._emit(ev.Notice("daemon", ATTACHED.format(id=self.session_id)))
        if self._partial is not None:
            # The reply the daemon is streaming now: shown from its start, then continued.
            message_id, text = self._partial
            self._emit(ev.AssistantStarted(message_id))
            self._emit(ev.TextDelta(message_id, text))
        self._own(self._follow(reader))

    async def enter_start_worktree(self) -> str | None:
        """The app awaits this before it shows the conversation: the moment to join."""
        try:
            await self.join()
        except AttachError as exc:
            return str(exc)
        return None

    async def _follow(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                wire = decode(line)
                if "news" in wire:
                    self._news(wire)
                    continue
                event = decode_event(wire)
                if event is not None:
                    self._on_remote_event(event)
        except (ConnectionError, ValueError):
            pass  # the daemon went away: shown as detached
        finally:
            self.detached.set()
            self._moved.set()
            if not self.destroyed:
                self._state = "idle"
            self._status_changed()

    def _on_remote_event(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.AssistantFinished | ev.UserMessageAdded):
            self._transcript.append(event.message)
        self._emit(event)

    def _news(self, news: dict[str, Any]) -> None:
        state = news.get("state")
        if state in ("idle", "busy", "waiting", "error"):
            self._state = state
        model = news.get("model")
        self._model = model if isinstance(model, str) else self._model
        mode = news.get("mode")
        self._mode = next((m for m in PERMISSION_MODES if m == mode), self._mode)
        done = news.get("done")
        if isinstance(done, int):
            self._done = done
        error = news.get("error")
        self._error = error if isinstance(error, str) else None
        self._moved.set()
        if news.get("destroyed"):
            self.destroyed = True
            self._emit(ev.ErrorOccurred(f"daemon session {self.session_id} was destroyed"))
        self._question_news(news.get("approval"))
        self._status_changed()

    def _question_news(self, approval: object) -> None:
        """A question of the daemon session: the front end's permission dialog; answered
        elsewhere (`wave daemon respond`), the dialog closes."""
        number = approval.get("number") if isinstance(approval, dict) else None
        if self._question is not None and self._question[0] != number:
            _, answered_elsewhere = self._question
            self._question = None
            if not answered_elsewhere.done():
                answered_elsewhere.cancel()
        if not isinstance(approval, dict) or self._question is not None:
            return
        future: asyncio.Future[ev.PermissionReply] = asyncio.get_running_loop().create_future()
        self._question = (int(number or 0), future)
        future.add_done_callback(self._answered)
        tool, reason = str(approval.get("tool", "")), str(approval.get("reason", ""))
        args = approval.get("args")
        args = args if isinstance(args, dict) else {}
        if self._approver is not None:
            self._own(self._ask_approver(future, tool, args, reason))
            return
        self._emit(ev.PermissionRequested(tool, args, reason, future))

    async def _ask_approver(
        self,
        future: asyncio.Future[ev.PermissionReply],
        tool: str,
        args: dict[str, Any],
        reason: str,
    ) -> None:
        assert self._approver is not None
        reply = await self._approver(tool, args, reason)
        if not future.done():
            future.set_result(reply)

    def _answered(self, future: asyncio.Future[ev.PermissionReply]) -> None:
        if future.cancelled():
            return
        self._own(self._request("respond", **reply_fields(future.result())))

    # -- the conversation ----------------------------------------------------------------------
    @property
    def available(self) -> bool:
        return not self.destroyed

    def start(self) -> None:
        """Nothing to restore here: the daemon holds the conversation (`join` brings it)."""

    def messages(self) -> list[Message]:
        return list(self._transcript)

    async def send(self, text: str) -> None:
        await self._request("send", text=text)

    async def run_turn(self, text: str) -> TurnResult:
        """One message to the daemon session, until the daemon has had its turn (a program's
        `send_message`); the live events must flow (`conversation_shown`)."""
        ended: list[ev.TurnEnded] = []

        def listen(event: ev.AgentEvent) -> None:
            if isinstance(event, ev.TurnEnded):
                ended.append(event)

        unsubscribe = self.subscribe(listen)
        try:
            answer = await self._request("send", text=text)
            if not answer.get("ok"):
                return TurnResult("error", error=str(answer.get("error", "the daemon refused")))
            mine = int(answer["session"]["accepted"])
            while self._done < mine and not self.detached.is_set():
                self._moved.clear()
                await self._moved.wait()
        finally:
            unsubscribe()
        if self._done < mine:
            return TurnResult("error", error="the daemon session went away")
        if self._error is not None:
            return TurnResult("error", error=self._error)
        last = ended[-1] if ended else None  # none: taken out of the inbox by an abort
        return TurnResult(last.status if last else "aborted", last.text if last else "")

    def abort(self) -> None:
        self._own(self._request("abort"))

    def status(self) -> AgentStatus:
        here = super().status()  # this machine's settings: memory, the context window
        return dataclasses.replace(
            here,
            configured=True,
            model=self._model or here.model,
            busy=self._state in _BUSY_STATES,
            permission_mode=self._mode,
            worktree=self._worktree,
        )

    async def close(self) -> None:
        """Detach: the session goes on in the daemon."""
        if self._stream is not None:
            self._stream.close()
            with contextlib.suppress(ConnectionError):
                await self._stream.wait_closed()
        for task in list(self._tasks):
            if not task.done():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await super().close()

    async def _request(self, op: str, **fields: Any) -> dict[str, Any]:
        """One request on a connection of its own; a failure is shown as an error line."""
        try:
            reader, writer = await asyncio.open_unix_connection(
                str(self._daemon.daemon_socket), limit=MAX_LINE_BYTES
            )
            try:
                writer.write(encode({"op": op, "id": self.session_id, **fields}))
                await writer.drain()
                answer = decode(await reader.readline())
            finally:
                writer.close()
        except (OSError, ValueError) as exc:
            answer = {"ok": False, "error": f"the daemon went away: {exc}"}
        if not answer.get("ok"):
            self._emit(ev.ErrorOccurred(f"daemon: {answer.get('error', 'failed')}"))
        return answer

    def _own(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def attach_session(
    session_id: str,
    workdir_paths: WavePaths,
    daemon: WavePaths,
    approver: Approver | None = None,
) -> RemoteSession:
    """The daemon session `session_id` for a front end working in `workdir_paths`'s project
    (its settings); joined by `join` (the app: when it starts the session)."""
    return RemoteSession(daemon, session_id, store=SettingsStore(workdir_paths), approver=approver)
