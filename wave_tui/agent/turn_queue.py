"""The service's turns, one after another: waiting messages, the running turn, its abort.

A message sent while a turn runs waits in the queue (the user may take the last one back or
drop them all); a turn that the Stop observers ask to go on continues a bounded number of times,
each continuation a turn of its own with the observer's reason as prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.events import Emit
from wave_tui.agent.turn_runner import MAX_CONTINUATIONS, TurnResult, TurnRunner

TurnWork = Callable[[str, asyncio.Event], Coroutine[Any, Any, TurnResult]]


class AgentDestroyed(RuntimeError):
    def __init__(self) -> None:
        super().__init__("Agent destroyed")


class TurnQueue:
    """`before_turn` runs before every turn (the service starts itself lazily there)."""

    def __init__(self, runner: TurnRunner, emit: Emit, before_turn: Callable[[], None]) -> None:
        self.waiting: list[str] = []
        self._runner = runner
        self._emit = emit
        self._before_turn = before_turn
        self._abort = asyncio.Event()
        self._turn_task: asyncio.Task[TurnResult] | None = None
        self._drain_task: asyncio.Task[None] | None = None
        self.closed = False

    @property
    def busy(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    @property
    def aborting(self) -> bool:
        return self._abort.is_set()

    # req: AC9
    async def send(self, text: str) -> None:
        if self.closed:
            raise AgentDestroyed()
        self.waiting.append(text)
        self._queue_changed()
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = asyncio.get_running_loop().create_task(self._drain())

    # req: FH8
    def wake(self) -> None:
        """A turn without a prompt, when nothing runs or waits (otherwise the next request
        carries what woke it anyway)."""
        if self.closed or self.busy or self.waiting:
            return
        if self._drain_task is not None and not self._drain_task.done():
            return
        self._drain_task = asyncio.get_running_loop().create_task(self._woken())

    async def _woken(self) -> None:
        with contextlib.suppress(AgentDestroyed):
            await self._run_one(self._runner.wake, "")
        await self._drain()

    async def _drain(self) -> None:
        while self.waiting and not self.closed:
            text = self.waiting.pop(0)
            self._queue_changed()
            await self.run_turn(text)

    # req: UX19
    def take_last(self) -> str | None:
        """The last waiting message, out of the queue (None when nothing waits)."""
        if not self.waiting:
            return None
        text = self.waiting.pop()
        self._queue_changed()
        return text

    # req: UX19
    def drop_all(self) -> bool:
        """Empty the queue; False when nothing waited."""
        if not self.waiting:
            return False
        self.waiting.clear()
        self._queue_changed()
        return True

    def _queue_changed(self) -> None:
        self._emit(ev.QueueChanged(tuple(self.waiting)))

    async def wait_idle(self) -> None:
        while self._drain_task is not None and not self._drain_task.done():
            await asyncio.shield(self._drain_task)

    def abort(self) -> None:
        self._abort.set()
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()

    async def close(self) -> None:
        """Abort the turn, refuse new ones and wait until the running ones are gone."""
        self.closed = True
        self.abort()
        for task in (self._turn_task, self._drain_task):
            if task is not None:
                with contextlib.suppress(BaseException):
                    await task

    async def run_turn(self, text: str) -> TurnResult:
        result = await self._run_one(self._runner.turn, text)
        continued = 0
        while not result.command:
            continuation = await self._runner.turn_ended(result)
            if (
                continuation is None
                or result.status != "completed"
                or continued >= MAX_CONTINUATIONS
                or self.closed
            ):
                break
            continued += 1
            result = await self._run_one(self._runner.go_on, continuation.reason)
        return result

    async def _run_one(self, work: TurnWork, text: str) -> TurnResult:
        if self.closed:
            raise AgentDestroyed()
        self._before_turn()
        self._abort = asyncio.Event()
        self._turn_task = asyncio.get_running_loop().create_task(work(text, self._abort))
        self._emit(ev.BusyChanged(True))
        try:
            result = await asyncio.shield(self._turn_task)
        except asyncio.CancelledError:
            if not self._turn_task.done():
                self._turn_task.cancel()
            with contextlib.suppress(BaseException):
                await self._turn_task
            result = TurnResult("aborted")
        finally:
            self._emit(ev.BusyChanged(False))
        return result
