"""One session the daemon hosts: its turns run one after another on a task the daemon owns, so
a client that disconnects loses nothing (DM2); its state, approvals and snapshot for clients."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections import deque
from collections.abc import Callable
from dataclasses import field
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.config.modes import PermissionMode
from wave_tui.config.records import record
from wave_tui.session.daemon.protocol import DaemonState
from wave_tui.session.daemon.registry import SessionRecord
from wave_tui.session.daemon.stream import encode_event, encode_message
from wave_tui.session.facade import AgentSession, key_argument

ALL_LINES = -1
Push = Callable[[dict[str, Any]], None]  # one line to an attached client


@record(frozen=False)
class PendingApproval:
    tool: str
    args: dict[str, Any]
    reason: str
    future: asyncio.Future[ev.PermissionReply] = field(repr=False)
    number: int = 0  # which question of the session this is (an attached client tells them apart)

    def line(self) -> str:
        what = key_argument(self.tool, self.args)
        return f"approval: {self.tool}{f' {what}' if what else ''}: {self.reason}"


# req: DM2
class HostedSession:
    """A facade session plus what the daemon's clients ask of it; `changed` is called after
    every change of state (the server wakes its waiters and saves the registry)."""

    def __init__(self, entry: SessionRecord, changed: Callable[[HostedSession], None]) -> None:
        self.entry = entry
        self._server_changed = changed
        self.session: AgentSession | None = None
        self._inbox: deque[str] = deque()
        self._wake = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._approvals: deque[PendingApproval] = deque()
        self._partial = ""  # the reply streaming now (shown by `status` before it is complete)
        self._partial_id: str | None = None
        self._asked = 0  # questions asked so far (numbers them for attached clients)
        self._subscribers: list[Push] = []  # attached clients' streams (DM2)
        self.accepted = 0  # messages taken by `send`
        self.done = 0  # of those, how many have had their turn
        self.error: str | None = None  # how the last turn failed (None: it did not)
        self.destroyed = False
        self.watchers = 0  # clients blocked in `wait` on this session now

    def attach(self, session: AgentSession) -> None:
        self.session = session
        session.subscribe(self._on_event)
        self._worker = asyncio.get_running_loop().create_task(self._run())

    # -- state -----------------------------------------------------------------------------
    # req: DM1
    @property
    def state(self) -> DaemonState:
        """Busy from the moment a message is accepted until its turn ended: a `wait` right
        after a `send` never sees a stale "idle" from before the turn started."""
        if self._approvals:
            return "waiting"
        if self.done < self.accepted:
            return "busy"
        return "error" if self.error is not None else "idle"

    @property
    def mode(self) -> PermissionMode:
        """The mode in force (the session's policy), which the registry keeps."""
        if self.session is not None and self.session.available:
            return self.session.status().permission_mode
        return self.entry.mode

    def snapshot(self, lines: int) -> dict[str, Any]:
        """What `status` and `wait` print: the state and the last `lines` messages."""
        return {
            "id": self.entry.id,
            "state": self.state,
            "mode": self.mode,
            "worktree": self.entry.worktree,
            "workdir": self.entry.workdir,
            "queued": len(self._inbox),
            "watchers": self.watchers,
            "attached": len(self._subscribers),
            "accepted": self.accepted,
            "done": self.done,
            "error": self.error,
            "approval": self._approvals[0].line() if self._approvals else None,
            "messages": self._messages(lines),
        }

    def _messages(self, lines: int) -> list[dict[str, str]]:
        if lines == 0 or self.session is None:
            return []
        shown = [
            {"role": m.role, "text": m.content}
            for m in self.session.messages()
            if m.role in ("user", "assistant") and not m.is_meta and m.content.strip()
        ]
        if self._partial:
            shown.append({"role": "assistant", "text": self._partial, "partial": "yes"})
        return shown if lines < 0 else shown[-lines:]

    # -- the conversation ------------------------------------------------------------------
    def send(self, text: str) -> None:
        """Take a message: it is in the session's inbox when this returns (the turn follows)."""
        self._inbox.append(text)
        self.accepted += 1
        self.error = None
        self._wake.set()
        self._changed(self)

    async def _run(self) -> None:
        # Ended by `close` through `destroyed`, not by cancelling: a turn swallows the
        # cancellation of whoever awaits it (it becomes an aborted turn).
        while not self.destroyed:
            await self._wake.wait()
            self._wake.clear()
            while self._inbox and self.session is not None and not self.destroyed:
                text = self._inbox.popleft()
                try:
                    result = await self.session.run_turn(text)
                    failed = (
                        (result.error or "the turn failed") if result.status == "error" else None
                    )
                except (
                    Exception
                ) as exc:  # one turn's failure is the session's state, not the daemon's end
                    failed = str(exc) or type(exc).__name__
                self._partial = ""
                self.error = failed
                self.done += 1
                self._follow_session()
                self._changed(self)

    def _follow_session(self) -> None:
        """The conversation may have moved to a new transcript (compaction, /clear)."""
        if self.session is not None and self.session.service is not None:
            conversation = self.session.service.session_id
            # ExitPlanMode or a hook may have changed the mode during the turn.
            self.entry = _with(self.entry, conversation=conversation, mode=self.mode)

    def abort(self) -> None:
        """Stop the running turn and drop what waits in the inbox."""
        dropped = len(self._inbox)
        self._inbox.clear()
        self.done += dropped
        if self.session is not None:
            self.session.abort()
        self._changed(self)

    # -- approvals -------------------------------------------------------------------------
    # req: DM1
    async def approve(self, tool: str, args: dict[str, Any], reason: str) -> ev.PermissionReply:
        """The session's approver: the question waits, however long, for a `respond`."""
        future: asyncio.Future[ev.PermissionReply] = asyncio.get_running_loop().create_future()
        self._asked += 1
        pending = PendingApproval(tool, dict(args), reason, future, self._asked)
        self._approvals.append(pending)
        self._changed(self)
        try:
            return await future
        finally:
            with contextlib.suppress(ValueError):
                self._approvals.remove(pending)
            self._changed(self)

    def set_mode(self, mode: PermissionMode) -> None:
        if self.session is not None and self.session.service is not None:
            self.session.service.set_permission_mode(mode)
        self.entry = _with(self.entry, mode=mode)
        self._changed(self)

    # req: DM3
    def respond(
        self, allow: bool, mode: PermissionMode | None, reply: ev.PermissionReply | None = None
    ) -> str | None:
        """Answer the oldest question (allow once or deny, or the attached dialog's whole
        `reply`), after setting `mode` when given; bypassPermissions answers every waiting
        question. The problem as one line, or None."""
        if mode is not None:
            self.set_mode(mode)
        if not self._approvals:
            return None if mode is not None else "nothing waits for approval"
        answer: ev.PermissionReply = reply or ("allow_once" if allow else "deny")
        waiting = list(self._approvals) if allow and mode == "bypassPermissions" else []
        for pending in waiting or [self._approvals[0]]:
            if not pending.future.done():
                pending.future.set_result(answer)
        return None

    # -- events ----------------------------------------------------------------------------
    def _on_event(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.TextDelta):
            self._partial += event.text
        elif isinstance(event, ev.AssistantStarted):
            self._partial, self._partial_id = "", event.message_id
        elif isinstance(event, ev.AssistantFinished):
            self._partial, self._partial_id = "", None
        wire = encode_event(event)
        if wire is not None:
            self._publish(wire)

    # -- attached clients (DM2) ------------------------------------------------------------
    # req: DM2
    def subscribe(self, push: Push) -> tuple[dict[str, Any], Callable[[], None]]:
        """An attached client: what it shows first (the conversation, the reply streaming
        now, the state) and, from the same instant, every event through `push` — taken in one
        step, so nothing generated around the attach is lost or shown twice."""
        messages = self.session.messages() if self.session is not None else []
        hello = {
            "session": self.snapshot(0),
            "transcript": [encode_message(m) for m in messages],
            "partial": {"id": self._partial_id, "text": self._partial}
            if self._partial_id is not None
            else None,
            "news": self._news(),
        }
        self._subscribers.append(push)

        def unsubscribe() -> None:
            if push in self._subscribers:
                self._subscribers.remove(push)
                self._server_changed(self)

        self._server_changed(self)
        return hello, unsubscribe

    def _news(self) -> dict[str, Any]:
        """The daemon's own news for attached clients: the state and the question waiting."""
        first = self._approvals[0] if self._approvals else None
        return {
            "news": "state",
            "state": self.state,
            "mode": self.mode,
            "model": self.session.status().model
            if self.session is not None and self.session.available
            else None,
            "destroyed": self.destroyed,
            "done": self.done,
            "error": self.error,
            "approval": None
            if first is None
            else {
                "number": first.number,
                "tool": first.tool,
                "args": first.args,
                "reason": first.reason,
            },
        }

    def _publish(self, wire: dict[str, Any]) -> None:
        for push in list(self._subscribers):
            push(wire)

    def _changed(self, _hosted: HostedSession) -> None:
        self._server_changed(self)
        if self._subscribers:
            self._publish(self._news())

    async def close(self) -> None:
        """End the session: its turn is stopped, a waiting question denied, its task ended."""
        self.destroyed = True
        self._inbox.clear()
        for pending in list(self._approvals):
            if not pending.future.done():
                pending.future.set_result("deny")
        if self.session is not None:
            self.session.abort()
        self._wake.set()
        if self._worker is not None:
            await self._worker
        if self.session is not None:
            await self.session.close()
        self._changed(self)


def _with(entry: SessionRecord, **changes: Any) -> SessionRecord:
    return dataclasses.replace(entry, **changes)
