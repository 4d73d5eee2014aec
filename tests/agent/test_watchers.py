"""The watching seams of the loop: request watchers around each model request, tool watchers
around each call (in the call's own task), event observers on every emitted event."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from tests.model_server import ModelServer, error, text, tool_call
from wave_tui.agent import events as ev
from wave_tui.agent.extensions import (
    EventObserver,
    RequestWatcher,
    ToolCallInfo,
    ToolOutcome,
    ToolWatcher,
)
from wave_tui.llm.types import Usage

_CALL: ContextVar[str | None] = ContextVar("test_call", default=None)


class Watch:
    def __init__(self, log: list[str], name: str) -> None:
        self.log = log
        self.name = name
        self.deltas = 0

    def delta(self) -> None:
        self.deltas += 1

    def replied(self, usage: Usage | None, has_tool_call: bool) -> None:
        self.log.append(f"{self.name} replied tools={has_tool_call} usage={usage is not None}")

    def finished(self, outcome: ToolOutcome) -> None:
        self.log.append(f"{self.name} {outcome.call.name} error={outcome.result.is_error}")


class Watcher:
    def __init__(self) -> None:
        self.log: list[str] = []
        self.in_call: list[str | None] = []

    @contextmanager
    def watch_request(self, model: str) -> Iterator[Watch]:
        watch = Watch(self.log, f"request {model}")
        try:
            yield watch
        except BaseException as exc:
            self.log.append(f"request failed {type(exc).__name__}")
            raise
        self.log.append(f"request deltas>0={watch.deltas > 0}")


class CallWatcher:
    def __init__(self, log: list[str], in_call: list[str | None]) -> None:
        self.log = log
        self.in_call = in_call

    @contextmanager
    def watch_tool(self, call: ToolCallInfo) -> Iterator[Watch]:
        token = _CALL.set(call.call_id)
        try:
            yield Watch(self.log, "tool")
        finally:
            _CALL.reset(token)


class Events:
    def __init__(self, in_call: list[str | None]) -> None:
        self.seen: list[type] = []
        self.in_call = in_call

    def on_event(self, event: ev.AgentEvent) -> None:
        self.seen.append(type(event))
        if isinstance(event, ev.ToolStarted):
            self.in_call.append(_CALL.get())  # emitted inside the call's watch


async def test_watchers_see_each_request_and_call_and_observers_every_event(
    make_service, model_server: ModelServer, project: Path
) -> None:
    (project / "a.txt").write_text("a\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / "a.txt")}, id="c1"), text("done")
    )
    service = make_service()
    watcher = Watcher()
    events = Events(watcher.in_call)
    service.add_extension(watcher, RequestWatcher)
    service.add_extension(CallWatcher(watcher.log, watcher.in_call), ToolWatcher)
    service.add_extension(events, EventObserver)
    result = await service.run_turn("go")
    assert result.status == "completed"
    assert watcher.log == [
        "request test-model replied tools=True usage=True",
        "request deltas>0=True",
        "tool Read error=False",
        "request test-model replied tools=False usage=True",
        "request deltas>0=True",
    ]
    assert watcher.in_call == ["c1"]
    assert ev.TextDelta in events.seen and ev.TurnEnded in events.seen


async def test_a_request_that_fails_leaves_its_watch_with_the_error(
    make_service, model_server: ModelServer
) -> None:
    model_server.enqueue(error(400, "bad body"))
    service = make_service()
    watcher = Watcher()
    service.add_extension(watcher, RequestWatcher)
    result = await service.run_turn("go")
    assert result.status == "error"
    assert len(watcher.log) == 1 and watcher.log[0].startswith("request failed ")
