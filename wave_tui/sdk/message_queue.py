"""The SDK's message queue (004 §3): messages sent while a turn runs wait, in order.

Every message a program sends (`send_message`, `stream`, `bang`) is a `QueuedMessage` here and
runs only when the one before it ended, so a conversation never has two turns at once (two turns
at once interleave a user message between a tool call and its result, which every endpoint then
rejects). The waiting ones can be read, removed, edited and the last removed one recalled; the
caller of a removed message gets an "aborted" ending.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
from collections.abc import Awaitable, Callable
from typing import Literal

from wave_tui.agent.turn_queue import AgentDestroyed
from wave_tui.agent.turn_runner import TurnResult
from wave_tui.config.records import record

QueuedType = Literal["message", "bash"]


@record
class QueuedMessage:
    """A message waiting for the running turn to end; `type` "bash" is a `bang()` command."""

    id: str
    content: str
    images: tuple[str, ...] = ()
    type: QueuedType = "message"


@dataclasses.dataclass(eq=False)
class _Entry:
    message: QueuedMessage
    done: asyncio.Future[TurnResult]
    on_start: Callable[[], None] | None = None


Runner = Callable[[QueuedMessage], Awaitable[TurnResult]]
_REMOVED = TurnResult("aborted")


# req: SX1
class MessageQueue:
    """Runs the messages one after another through `run`; `changed` hears every change of the
    waiting list (the `on_queued_messages_change` callback)."""

    def __init__(self, run: Runner, changed: Callable[[list[QueuedMessage]], None]) -> None:
        self._run = run
        self._changed = changed
        self._waiting: list[_Entry] = []
        self._running: _Entry | None = None
        self._removed: list[QueuedMessage] = []
        self._worker: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._closed = False

    @property
    def waiting(self) -> list[QueuedMessage]:
        return [e.message for e in self._waiting]

    @property
    def running(self) -> QueuedMessage | None:
        return self._running.message if self._running is not None else None

    def enqueue(
        self,
        content: str,
        images: tuple[str, ...] = (),
        kind: QueuedType = "message",
        on_start: Callable[[], None] | None = None,
    ) -> tuple[QueuedMessage, asyncio.Future[TurnResult]]:
        """Queue a message; the future ends with its turn. Raises AgentDestroyed when closed."""
        if self._closed:
            raise AgentDestroyed()
        loop = asyncio.get_running_loop()
        message = QueuedMessage(f"q{next(self._ids)}", content, images, kind)
        entry = _Entry(message, loop.create_future(), on_start)
        self._waiting.append(entry)
        self._notify()
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._drain())
        return message, entry.done

    async def wait(self, message: QueuedMessage, done: asyncio.Future[TurnResult]) -> TurnResult:
        """The message's ending; a caller that stops waiting takes its message out of the queue
        (or, when it already runs, the caller decides: see `cancel`)."""
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            self.remove_by_id(message.id)
            raise

    async def _drain(self) -> None:
        while self._waiting and not self._closed:
            entry = self._waiting.pop(0)
            self._running = entry
            self._notify()
            try:
                if entry.on_start is not None:
                    entry.on_start()
                result = await self._run(entry.message)
            except BaseException as exc:  # the caller sees it; the queue goes on
                if not entry.done.done():
                    entry.done.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
            else:
                if not entry.done.done():
                    entry.done.set_result(result)
            finally:
                self._running = None

    def _notify(self) -> None:
        self._changed(self.waiting)

    def _take(self, entry: _Entry) -> None:
        self._waiting.remove(entry)
        self._removed.append(entry.message)
        if not entry.done.done():
            entry.done.set_result(_REMOVED)
        self._notify()

    def remove(self, index: int) -> bool:
        """Take the message at `index` of the waiting list out; False when there is none."""
        if not 0 <= index < len(self._waiting):
            return False
        self._take(self._waiting[index])
        return True

    def remove_by_id(self, message_id: str) -> bool:
        for entry in self._waiting:
            if entry.message.id == message_id:
                self._take(entry)
                return True
        return False

    def update_by_id(
        self,
        message_id: str,
        *,
        content: str | None = None,
        images: tuple[str, ...] | None = None,
        kind: QueuedType | None = None,
    ) -> bool:
        """Change a waiting message in place (its place in the queue stays); False when no
        message of that id waits."""
        for entry in self._waiting:
            if entry.message.id == message_id:
                old = entry.message
                entry.message = QueuedMessage(
                    old.id,
                    old.content if content is None else content,
                    old.images if images is None else images,
                    old.type if kind is None else kind,
                )
                self._notify()
                return True
        return False

    def recall(self) -> QueuedMessage | None:
        """The message removed last (the Up arrow's recall), taken from the removed ones."""
        return self._removed.pop() if self._removed else None

    def close(self) -> None:
        """Refuse new messages; the waiting ones end as removed."""
        self._closed = True
        for entry in list(self._waiting):
            self._take(entry)

    async def join(self) -> None:
        """Until the running message ended (after the turn was aborted)."""
        if self._worker is not None:
            with contextlib.suppress(BaseException):
                await self._worker
