"""`await Agent.attach(session_id)`: a `wave daemon` session from a program (DM2).

The conversation runs in the daemon: a message sent here is the daemon session's next message,
its events stream here as they happen, a question it asks goes to `can_use_tool` (none given:
it waits for `wave daemon respond`), and `detach()` leaves the session, and a turn it runs,
going on in the daemon.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths, home_dir
from wave_tui.llm.types import Message
from wave_tui.permissions.policy import PermissionAnswer, PermissionReply
from wave_tui.sdk.events import ErrorEvent, StreamEvent, TurnEnd, to_stream_event
from wave_tui.session.daemon.remote import AttachError, RemoteSession, attach_session

CanUseTool = Callable[[str, dict[str, Any]], dict[str, Any] | Awaitable[dict[str, Any]]]

__all__ = ["AttachError", "AttachedAgent"]


# req: DM2
class AttachedAgent:
    """A daemon session attached to this program; from `await Agent.attach(session_id)`."""

    def __init__(self, session: RemoteSession) -> None:
        self._session = session

    @classmethod
    async def attach(
        cls,
        session_id: str,
        *,
        workdir: str | Path | None = None,
        can_use_tool: CanUseTool | None = None,
    ) -> AttachedAgent:
        """Attach; AttachError (one line) when no daemon runs or it has no such session."""
        project = WavePaths.for_workdir(Path(workdir) if workdir is not None else Path.cwd())

        async def approve(tool: str, args: dict[str, Any], reason: str) -> PermissionReply:
            assert can_use_tool is not None
            from wave_tui.sdk.agent import _answer

            try:
                result = can_use_tool(tool, dict(args))
                if inspect.isawaitable(result):
                    result = await result
                return _answer(result)
            except Exception as exc:  # the program's callback: refused, the turn goes on
                return PermissionAnswer("deny", feedback=f"can_use_tool failed: {exc}")

        daemon = WavePaths.for_workdir(home_dir())
        session = attach_session(
            session_id, project, daemon, approve if can_use_tool is not None else None
        )
        await session.join()
        session.conversation_shown()
        return cls(session)

    async def __aenter__(self) -> AttachedAgent:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.detach()

    @property
    def session_id(self) -> str:
        """The daemon session's id (as `wave daemon list` shows it)."""
        return self._session.session_id

    @property
    def messages(self) -> list[Message]:
        """The conversation so far (copies)."""
        return [m.model_copy(deep=True) for m in self._session.messages()]

    @property
    def is_loading(self) -> bool:
        """True while the daemon session runs a turn (or waits for an answer)."""
        return self._session.status().busy

    async def send_message(self, text: str) -> TurnEnd:
        """Send one message to the daemon session and return how its turn ended."""
        result = await self._session.run_turn(text)
        return TurnEnd(result.status, result.text, result.error)

    async def stream(self, text: str) -> AsyncIterator[StreamEvent]:
        """Send one message and yield the events of the daemon session until its turn ended;
        `TurnEnd` comes last. Leaving the loop early does not stop the daemon's turn."""
        events: asyncio.Queue[StreamEvent] = asyncio.Queue()

        def listen(event: ev.AgentEvent) -> None:
            mapped = to_stream_event(event)
            if mapped is not None and not isinstance(mapped, TurnEnd):
                events.put_nowait(mapped)

        unsubscribe = self._session.subscribe(listen)
        turn = asyncio.ensure_future(self._session.run_turn(text))
        try:
            while not turn.done() or not events.empty():
                getter = asyncio.ensure_future(events.get())
                await asyncio.wait({getter, turn}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                else:
                    getter.cancel()
            result = turn.result()
            if result.status == "error" and result.error:
                yield ErrorEvent(result.error)
            yield TurnEnd(result.status, result.text, result.error)
        finally:
            unsubscribe()
            if not turn.done():
                turn.cancel()
                with contextlib.suppress(BaseException):
                    await turn

    def abort(self) -> None:
        """Stop the daemon session's turn (as `wave daemon abort`)."""
        self._session.abort()

    async def detach(self) -> None:
        """Leave the session; it goes on in the daemon. A second call does nothing."""
        await self._session.close()
