"""Background memory extraction: a fork that shares the main request's cached prefix.

The fork's first request is the main loop's last request, byte for byte (system blocks, cache
marks, tools, model, every message including the memory reminder), then the turn's final reply,
then one user message: the existing-memory manifest and the extraction prompt (F1–F3, F12).
It runs with a clone of the main read state (F10), never writes back (F8, F11), may write only
inside the memory directory (F5–F7), and leaves an audit record of what it did.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from wave_tui.agent import events as ev
from wave_tui.agent.extensions import StatusContribution, TurnContinuation, TurnEnd, TurnStart
from wave_tui.agent.locks import async_file_lock
from wave_tui.config.fileio import atomic_write_text
from wave_tui.llm.client import ModelClient
from wave_tui.llm.types import Message, ToolCall
from wave_tui.llm.wire import mark_last_message, message_to_wire, strip_cache_marks
from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.fork_gate import ForkToolGate
from wave_tui.memory.manifest import build_manifest
from wave_tui.memory.prompts import render_extraction_prompt
from wave_tui.tools.base import Tool, ToolContext, ToolResult
from wave_tui.tools.read_state import ReadState

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings

MAX_FORK_TURNS = 5
AUDIT_DIR = "extractions"


@dataclass
class ExtractionRecord:
    started_at: float
    session_id: str
    model: str
    finished_at: float | None = None
    turns: int = 0
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    usage: list[dict[str, int]] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class ForkSnapshot:
    """What the fork starts from, captured when the main turn ended."""

    body: dict[str, Any]
    final_reply: Message
    read_state: ReadState
    session_id: str


def last_extraction_time(project_dir: Path, session_id: str) -> float | None:
    """When this session's latest extraction started, from its audit records."""
    latest: float | None = None
    for record in (project_dir / AUDIT_DIR).glob(f"*-{session_id[:8]}-*.json"):
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("session_id") == session_id and isinstance(data.get("started_at"), float | int):
            latest = max(latest or 0.0, float(data["started_at"]))
    return latest


class ExtractionFork:
    def __init__(
        self,
        snapshot: ForkSnapshot,
        *,
        client: ModelClient,
        memory: AutoMemoryDir,
        tools: list[Tool],
        workdir: Path,
        emit: Callable[[ev.AgentEvent], None],
    ) -> None:
        self.snapshot = snapshot
        self.client = client
        self.memory = memory
        self.tools = {t.name: t for t in tools}
        self.workdir = workdir
        self.gate = ForkToolGate(memory)
        self.emit = emit
        self.read_state = snapshot.read_state  # already a clone: never flows back (F11)
        self.abort = asyncio.Event()

    def first_body(self) -> dict[str, Any]:
        base = self.snapshot.body
        caching = "cache_control" in json.dumps(base["messages"][0])
        prompt = render_extraction_prompt(self.memory.path, build_manifest(self.memory.path))
        tail = [
            message_to_wire(self.snapshot.final_reply),
            {"role": "user", "content": prompt},
        ]
        return self._body(tail, caching)

    def _body(self, tail: list[dict[str, Any]], caching: bool) -> dict[str, Any]:
        base = self.snapshot.body
        # The shared prefix is copied as sent; only the fork's own tail gets the moving mark.
        added = mark_last_message(tail) if caching else tail
        return {**base, "messages": [*copy.deepcopy(base["messages"]), *added]}

    async def run(self, record: ExtractionRecord) -> ExtractionRecord:
        body = self.first_body()
        caching = "cache_control" in json.dumps(body["messages"][0])
        tail = body["messages"][len(self.snapshot.body["messages"]) :]
        tail = strip_cache_marks(tail)
        for _ in range(MAX_FORK_TURNS):
            record.turns += 1
            reply = await self.client.stream_chat(self._body(tail, caching))
            if reply.usage is not None:
                record.usage.append(reply.usage.model_dump())
                self.emit(ev.UsageUpdated(reply.usage, record.model, source="fork"))
            assistant = Message(
                role="assistant", content=reply.content, tool_calls=reply.tool_calls
            )
            tail.append(message_to_wire(assistant))
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                result = await self._run_tool(call, record)
                tail.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
        return record

    async def _run_tool(self, call: ToolCall, record: ExtractionRecord) -> ToolResult:
        try:
            args = json.loads(call.arguments or "{}")
        except ValueError:
            args = None
        if not isinstance(args, dict):
            return ToolResult(f"Invalid arguments for {call.name}.", is_error=True)
        decision = self.gate.check(call.name, args, self.workdir)
        tool = self.tools.get(call.name)
        if not decision.allowed or tool is None:
            record.refused.append(f"{call.name} {_key(args)}".strip())
            return ToolResult(f"Refused: {decision.reason}", is_error=True)
        ctx = ToolContext(workdir=self.workdir, read_state=self.read_state, abort=self.abort)
        if call.name in ("Write", "Edit"):
            async with async_file_lock(self.gate_target(args)):  # req: X2
                result = await tool.run(args, ctx)
        else:
            result = await tool.run(args, ctx)
        record.reads.extend(str(p) for p in result.read_paths)
        record.writes.extend(str(p) for p in result.written_paths)
        return result

    def gate_target(self, args: dict[str, Any]) -> Path:
        raw = Path(str(args.get("file_path"))).expanduser()
        return raw if raw.is_absolute() else self.workdir / raw


def _key(args: dict[str, Any]) -> str:
    for key in ("file_path", "command", "pattern"):
        if isinstance(args.get(key), str):
            return str(args[key])[:120]
    return ""


class ExtractionSchedule(Protocol):
    """What the scheduler needs from auto memory (the switch, the countdown, C3's flag)."""

    @property
    def dir(self) -> AutoMemoryDir: ...

    def refresh(self, settings: EffectiveSettings) -> bool: ...

    def take_wrote_memory(self) -> bool: ...

    def count_turn(self) -> bool: ...


@dataclass(frozen=True)
class ForkHost:
    """What the scheduler needs from the agent: a narrow view, never its internals."""

    snapshot: Callable[[], ForkSnapshot | None]  # the last main request and reply, or None
    client: Callable[[], ModelClient]
    tools: Callable[[], list[Tool]]
    settings: Callable[[], EffectiveSettings]  # read live at each turn end (S1, S2)
    workdir: Path
    audit_dir: Path
    publish: Callable[[ev.AgentEvent], None]
    notify: Callable[[str, str], None]


class ExtractionHook:
    """The scheduler: at the end of each completed main turn, maybe start one fork (C1–C4, S1–S4).
    A TurnObserver, SessionObserver and StatusSource."""

    def __init__(self, host: ForkHost, auto: ExtractionSchedule) -> None:
        self.host = host
        self.auto = auto
        self.task: asyncio.Task[None] | None = None
        self.owed = False
        self.closing = False
        self.last_record: ExtractionRecord | None = None

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def status(self) -> StatusContribution:
        return StatusContribution(extraction_running=self.running)

    async def on_turn_start(self, prompt: str) -> TurnStart:
        return TurnStart()

    async def on_turn_end(self, end: TurnEnd) -> TurnContinuation | None:
        self._turn_ended(end.status)
        return None

    # req: C1
    def _turn_ended(self, status: ev.TurnStatus) -> None:
        # C3 covers this turn only (seed: 本轮): whatever happens next, the flag starts afresh.
        wrote_memory = self.auto.take_wrote_memory()
        if status != "completed" or self.closing:
            return  # never after an abort or an API error
        # The switch is read live: turned off during the turn ⇒ no extraction (S1, S2).
        if not self.auto.refresh(self.host.settings()) or not self.auto.count_turn():
            return
        if wrote_memory:  # req: C3
            self.host.notify("memory", "extraction skipped: memory was saved in this turn")
            return
        if self.running:  # req: C2
            self.owed = True  # no concurrent fork (C1); run once when this one ends (C2)
            return
        self._start()

    def _start(self) -> None:
        snapshot = self.host.snapshot()
        if snapshot is None:
            return
        self.task = asyncio.get_running_loop().create_task(self._run(snapshot))

    async def _run(self, snapshot: ForkSnapshot) -> None:
        emit = self.host.publish
        emit(ev.BackgroundChanged("extraction", True, "extracting memories"))
        record = ExtractionRecord(time.time(), snapshot.session_id, snapshot.body.get("model", ""))
        detail = ""
        written: tuple[str, ...] = ()
        cancelled = True  # until the fork returns or fails on its own
        try:
            fork = ExtractionFork(
                snapshot,
                client=self.host.client(),
                memory=self.auto.dir,
                tools=self.host.tools(),
                workdir=self.host.workdir,
                emit=emit,
            )
            await fork.run(record)
            cancelled = False
            written = tuple(sorted({Path(w).name for w in record.writes}))
            detail = f"memory updated: {', '.join(written)}" if written else "no new memories"
        except Exception as exc:  # extraction errors never disturb the main session
            cancelled = False
            record.error = str(exc) or type(exc).__name__
            detail = f"memory extraction failed: {record.error}"
        finally:
            record.finished_at = time.time()
            self.last_record = record
            self._write_audit(record)
            emit(ev.BackgroundChanged("extraction", False, detail))
            if record.writes:
                emit(ev.MemoryChanged(tuple(sorted({Path(w) for w in record.writes}))))
            emit(ev.ExtractionFinished(written, record.error, cancelled))
        if self.owed and not self.closing:
            self.owed = False
            if self.auto.refresh(self.host.settings()):
                self._start()

    def _write_audit(self, record: ExtractionRecord) -> None:
        folder = self.host.audit_dir
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(record.started_at))
        path = (
            folder
            / f"{stamp}-{record.session_id[:8]}-{int(record.started_at * 1000) % 1000:03d}.json"
        )
        with contextlib.suppress(OSError):
            atomic_write_text(path, json.dumps(asdict(record), indent=2))

    async def wait(self) -> None:
        while self.running:
            assert self.task is not None
            await asyncio.shield(self.task)

    def on_settings(self, settings: EffectiveSettings) -> None:
        pass

    def on_messages_restored(self, messages: list[Message]) -> None:
        pass

    # req: C4
    async def aclose(self) -> None:
        """Exit awaits the fork in flight: its writes are never cut off (C4)."""
        self.closing = True
        if self.running:
            self.host.notify("memory", "waiting for the memory extraction to finish…")
        await self.wait()
