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
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from wave_tui.agent import events as ev
from wave_tui.agent.extensions import (
    CompactionTrigger,
    Extensions,
    StatusContribution,
    ToolCallInfo,
    ToolGuard,
    ToolLock,
    ToolObserver,
    ToolOutcome,
    TurnContinuation,
    TurnEnd,
    TurnStart,
)
from wave_tui.agent.tool_executor import ToolPipeline, parse_call
from wave_tui.config.async_locks import async_file_lock
from wave_tui.config.fileio import atomic_write_text
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.memory.team_proposals import (
    propose_team,
    proposed_text,
    team_decision,
    team_note,
    team_target,
)
from wave_tui.features.sandbox.fork import fork_bash_profile
from wave_tui.files.read_state import ReadState
from wave_tui.files.real_paths import resolve_tool_path
from wave_tui.llm.types import Message, ToolCall
from wave_tui.llm.wire import mark_last_message, message_to_wire, strip_cache_marks
from wave_tui.memory.auto_memory import AutoMemoryDir
from wave_tui.memory.catalog_marks import fork_conflict_note
from wave_tui.memory.duplicates import duplicate_note
from wave_tui.memory.fork_gate import memory_fork_gate
from wave_tui.memory.inbox import WORKTREE_TAG, Inbox, InboxError, review_enabled
from wave_tui.memory.manifest import build_manifest
from wave_tui.memory.prompts import (
    render_extraction_prompt,
    render_standalone_extraction_prompt,
    render_typology,
)
from wave_tui.memory.provenance import record_writes
from wave_tui.memory.rule_check import violation_note
from wave_tui.memory.runs import ChangeRecorder, run_id_for
from wave_tui.permissions.fork_gate import GateDecision
from wave_tui.permissions.hook_verdict import NO_VERDICT, HookVerdict
from wave_tui.permissions.policy import Ask, Resolution
from wave_tui.permissions.tool_table import writes_paths
from wave_tui.tools.base import Tool, ToolContext, ToolContexts, ToolResult

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings
    from wave_tui.llm.client import ModelClient

MAX_FORK_TURNS = 5
AUDIT_DIR = "extractions"


@record(frozen=False)
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
    turn: int | None = None  # the main session's user turn that triggered the run (MX7)
    # Per memory file written: content before the run and after it, to show and revert (MX7).
    changes: list[dict[str, Any]] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # review-inbox item ids (MX8)
    cancelled: bool = False  # the user quit without waiting for the run (UX9)


@record
class ForkSnapshot:
    """What the fork starts from, captured when the main turn ended."""

    body: dict[str, Any]
    final_reply: Message
    read_state: ReadState
    session_id: str
    turn: int | None = None


def last_extraction_time(project_dir: Path, session_id: str) -> float | None:
    """When this session's latest extraction started, from its audit records."""
    latest: float | None = None
    for audit in (project_dir / AUDIT_DIR).glob(f"*-{session_id[:8]}-*.json"):
        try:
            data = json.loads(audit.read_text(encoding="utf-8"))
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
        paths: WavePaths | None = None,
        inbox: Inbox | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.paths = paths  # for duplicate notes (MX9)
        self.inbox = inbox  # review mode: writes are proposed, never made (MX8)
        self.recorder = ChangeRecorder()
        self.client = client
        self.memory = memory
        self.tools = {t.name: t for t in tools}
        self.workdir = workdir
        self.gate = memory_fork_gate(memory)
        self.emit = emit
        # req: F11
        self.read_state = snapshot.read_state  # already a clone: never flows back (F11)
        self.abort = asyncio.Event()

    # req: F1
    # req: F3
    # req: F9
    def first_body(self, manifest: str | None = None) -> dict[str, Any]:
        base = self.snapshot.body
        caching = "cache_control" in json.dumps(base["messages"][0])
        if manifest is None:
            citations = self.paths.citations_file if self.paths is not None else None
            manifest = build_manifest(
                self.memory.path, project_root=self.workdir, citations=citations
            )
        # The typology rides in the shared system prompt when auto memory was on for it.
        system = json.dumps(base["messages"][0], ensure_ascii=False)
        shared = json.dumps(render_typology(), ensure_ascii=False)[1:-1] in system
        render = render_extraction_prompt if shared else render_standalone_extraction_prompt
        prompt = render(self.memory.path, manifest)
        if self.paths is not None:
            notes = [
                team_note(self.paths),
                fork_conflict_note(self.paths),
                violation_note(self.paths.project_dir),
            ]
            prompt = "\n\n".join([prompt, *(n for n in notes if n)])
        tail = [
            message_to_wire(self.snapshot.final_reply),
            {"role": "user", "content": prompt},
        ]
        return self._body(tail, caching)

    def _body(self, tail: list[dict[str, Any]], caching: bool) -> dict[str, Any]:
        base = self.snapshot.body
        # The shared prefix is sent as the main request sent it (its wire messages are never
        # changed in place); only the fork's own tail gets the moving mark.
        added = mark_last_message(tail) if caching else tail
        return {**base, "messages": [*base["messages"], *added]}

    # req: PV2
    # req: MR6
    async def run(self, record: ExtractionRecord) -> ExtractionRecord:
        # The stale-reference checks read the project: off the event loop (MX6).
        citations = self.paths.citations_file if self.paths is not None else None
        manifest = await asyncio.to_thread(
            build_manifest, self.memory.path, project_root=self.workdir, citations=citations
        )
        body = self.first_body(manifest)
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
                role="assistant",
                content=reply.content,
                reasoning=reply.reasoning or None,
                tool_calls=reply.tool_calls,
            )
            tail.append(message_to_wire(assistant))
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                result = await self._run_tool(call, record)
                tail.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
        return record

    # The fork's calls go down the same tool pipeline as the main agent's, with none of the main
    # loop's guards and observers: no user hook sees them; the fork's gate, its locked and
    # recorded writes and its audit stand in their place.
    # req: HK9
    # req: X2
    # req: MX7
    # req: MX9
    # req: FH10
    async def _run_tool(self, call: ToolCall, record: ExtractionRecord) -> ToolResult:
        parsed = parse_call(call, self.workdir)
        if isinstance(parsed, str):
            return ToolResult(parsed, is_error=True)
        road = _ForkRoad(self, record)
        if parsed.name not in self.tools:
            # A tool the main request declares (Agent, an MCP tool) is refused to the
            # extraction by its gate, and recorded, not "unknown".
            refusal = await road.check(parsed)
            return ToolResult(refusal or f"Refused: {parsed.name}", is_error=True)
        extensions = Extensions()
        extensions.add(road, ToolGuard, ToolLock, ToolObserver)
        pipeline = ToolPipeline(
            policy=road,
            emit=lambda event: None,  # the fork's calls are not the main chat's
            extensions=extensions,
            contexts=ToolContexts(self.workdir, read_state=lambda: self.read_state),
            asker=lambda: None,  # nobody is asked: the gate alone answers
        )
        tools = {name: road.tool(tool) for name, tool in self.tools.items()}
        outcome = await pipeline.run_call(parsed, tools, self.abort)
        return outcome.result

    # req: MX8
    def _propose(
        self, name: str, args: dict[str, Any], target: Path, record: ExtractionRecord
    ) -> ToolResult:
        """Review mode: the write becomes a pending inbox item; the memory dir is untouched."""
        assert self.inbox is not None
        try:
            after = proposed_text(name, args, self.inbox.current_text(target))
        except InboxError as exc:
            return ToolResult(str(exc), is_error=True)
        run_id = run_id_for(record.started_at, record.session_id)
        item = self.inbox.propose(target, after, run_id)
        if item.id not in record.pending:
            record.pending.append(item.id)
        text = (
            f"Saved {target} for review (pending item {item.id}): the user accepts or rejects "
            "it; until then the memory folder is unchanged."
        )
        note = duplicate_note(target, self.paths, after) if self.paths is not None else None
        return ToolResult(f"{text}\n\n{note}" if note else text)


class _ForkRoad:
    """The fork's side of the pipeline: its gate (a guard, so a refusal comes before anything
    else, and the policy, giving the allowed call its run profile), the lock and change record
    of a memory write, and the audit of what was read and written."""

    def __init__(self, fork: ExtractionFork, record: ExtractionRecord) -> None:
        self.fork = fork
        self.record = record
        self._allowed: dict[str, GateDecision] = {}

    def tool(self, tool: Tool) -> Tool:
        """Write and Edit of the team folder, and every one in review mode, become proposals
        for the inbox."""
        if writes_paths(tool.name):
            return _Proposal(tool, self.fork, self.record)
        return tool

    def _team(self, call: ToolCallInfo) -> Path | None:
        return team_target(self.fork.paths, call.name, self._target(call))

    def _target(self, call: ToolCallInfo) -> Path | None:
        return call.facts.target if call.row.writes_paths else None

    async def check(self, call: ToolCallInfo) -> str | None:
        team = self._team(call) is not None
        decision = team_decision(call.name, call.args) if team else self.fork.gate.check(call)
        if not decision.allowed:
            self.record.refused.append(f"{call.name} {call.key[:120]}".strip())
            return f"Refused: {decision.reason}"
        self._allowed[call.call_id] = decision
        return None

    async def resolve(
        self, call: ToolCallInfo, ask: Ask | None, hook: HookVerdict = NO_VERDICT
    ) -> Resolution:
        profile = self._allowed.pop(call.call_id).profile
        if call.facts.command is not None:  # Bash: in the sandbox where there is one (SB6)
            profile = fork_bash_profile(profile, self.fork.gate.memory_dir)
        return Resolution(None, profile)

    def lock_for(self, call: ToolCallInfo) -> AbstractAsyncContextManager[None] | None:
        target = self._target(call)
        if target is None or self.fork.inbox is not None or self._team(call) is not None:
            return None
        return self._locked_write(target)

    @contextlib.asynccontextmanager
    async def _locked_write(self, target: Path) -> AsyncIterator[None]:
        async with async_file_lock(target):
            await asyncio.to_thread(self.fork.recorder.touch, target)
            yield

    async def after_tool(self, outcome: ToolOutcome) -> None:
        result = outcome.result
        target = self._target(outcome.call)
        if target is None:
            self.record.reads.extend(str(p) for p in result.read_paths)
            return
        if self.fork.inbox is not None or self._team(outcome.call) is not None:
            return  # a proposal: nothing was written, its note is in its text
        self.record.writes.extend(str(p) for p in result.written_paths)
        if not result.is_error and self.fork.paths is not None:
            note = await asyncio.to_thread(duplicate_note, target, self.fork.paths)
            if note is not None:
                result.content = f"{result.content}\n\n{note}"


class _Proposal:
    """A Write or Edit of the fork in review mode: the change waits in the inbox (MX8)."""

    def __init__(self, tool: Tool, fork: ExtractionFork, record: ExtractionRecord) -> None:
        self._tool = tool
        self.name = tool.name
        self.description = tool.description
        self.read_only = tool.read_only
        self.parameters = tool.parameters
        self._fork = fork
        self._record = record

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        fork = self._fork
        target = resolve_tool_path(args.get("file_path"), ctx.workdir)
        team = team_target(fork.paths, self.name, target)
        if team is not None and fork.paths is not None:
            return await asyncio.to_thread(self._propose_team, fork.paths, args, team)
        if fork.inbox is None:
            return await self._tool.run(args, ctx)  # not review mode: the write is made
        assert target is not None  # the gate lets a write through only inside the memory folder
        return await asyncio.to_thread(fork._propose, self.name, args, target, self._record)

    # req: MM4
    def _propose_team(self, paths: WavePaths, args: dict[str, Any], target: Path) -> ToolResult:
        run_id = run_id_for(self._record.started_at, self._record.session_id)
        result, item = propose_team(paths, self.name, args, target, run_id)
        if item is not None and item.id not in self._record.pending:
            self._record.pending.append(item.id)
        return result


class ExtractionSchedule(Protocol):
    """What the scheduler needs from auto memory (the switch, the countdown, C3's flag)."""

    @property
    def dir(self) -> AutoMemoryDir: ...

    def refresh(self, settings: EffectiveSettings) -> bool: ...

    def take_wrote_memory(self) -> bool: ...

    def count_turn(self) -> bool: ...

    def take_unseen_turns(self) -> int: ...


@record
class ForkHost:
    """What the scheduler needs from the agent: a narrow view, never its internals."""

    snapshot: Callable[[], ForkSnapshot | None]  # the last main request and reply, or None
    client: Callable[[], ModelClient]
    tools: Callable[[], list[Tool]]
    settings: Callable[[], EffectiveSettings]  # read live at each turn end (S1, S2)
    workdir: Path
    audit_dir: Path
    paths: WavePaths
    publish: Callable[[ev.AgentEvent], None]
    notify: Callable[[str, str], None]
    worktree: Callable[[], str | None] = lambda: None  # the worktree the session works in


# req: UX9
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
    # req: S1
    # req: S2
    # req: C3
    # req: C2
    def _turn_ended(self, status: ev.TurnStatus) -> None:
        # C3 covers this turn only (seed: 本轮): whatever happens next, the flag starts afresh.
        wrote_memory = self.auto.take_wrote_memory()
        if status != "completed" or self.closing:
            return  # never after an abort or an API error
        # The switch is read live: turned off during the turn ⇒ no extraction (S1, S2).
        if not self.auto.refresh(self.host.settings()) or not self.auto.count_turn():
            return
        if wrote_memory:
            self.host.notify("memory", "extraction skipped: memory was saved in this turn")
            return
        if self.running:
            self.owed = True  # no concurrent fork (C1); run once when this one ends (C2)
            return
        self._start()

    def _start(self) -> None:
        snapshot = self.host.snapshot()
        if snapshot is None:
            return
        self.task = asyncio.get_running_loop().create_task(self._run(snapshot))

    # req: UX9
    async def _run(self, snapshot: ForkSnapshot) -> None:
        emit = self.host.publish
        emit(ev.BackgroundChanged("extraction", True, "extracting memories"))
        record = ExtractionRecord(time.time(), snapshot.session_id, snapshot.body.get("model", ""))
        record.turn = snapshot.turn
        detail = ""
        fork: ExtractionFork | None = None
        written: tuple[str, ...] = ()
        cancelled = True  # until the fork returns or fails on its own
        try:
            settings = self.host.settings()
            review = review_enabled(settings)
            staged = self._staged_tag(settings)
            paths = self.host.paths
            fork = ExtractionFork(
                snapshot,
                client=self.host.client(),
                memory=self.auto.dir,
                tools=self.host.tools(),
                workdir=self.host.workdir,
                emit=emit,
                paths=paths,
                inbox=(
                    Inbox(paths.project_dir, self.auto.dir.path, tag=staged)
                    if review or staged
                    else None
                ),
            )
            await fork.run(record)
            cancelled = False
            written = tuple(sorted({Path(w).name for w in record.writes}))
            detail = f"memory updated: {', '.join(written)}" if written else "no new memories"
            if record.pending:
                detail = f"{len(record.pending)} memory write(s) waiting for review"
        except Exception as exc:  # extraction errors never disturb the main session
            cancelled = False
            record.error = str(exc) or type(exc).__name__
            detail = f"memory extraction failed: {record.error}"
        finally:
            record.cancelled = cancelled
            if fork is not None:
                record.changes = await asyncio.to_thread(fork.recorder.changes)
            record.finished_at = time.time()
            self.last_record = record
            self._write_audit(record)
            if record.writes:
                await asyncio.to_thread(self._record_provenance, record)
            emit(ev.BackgroundChanged("extraction", False, detail))
            if record.writes:
                emit(ev.MemoryChanged(tuple(sorted({Path(w) for w in record.writes})), "fork"))
            emit(ev.ExtractionFinished(written, record.error, cancelled))
        if self.owed and not self.closing:
            self.owed = False
            if self.auto.refresh(self.host.settings()):
                self._start()

    # req: MR2
    def _staged_tag(self, settings: EffectiveSettings) -> str | None:
        """`worktree:NAME` while `worktree.memory` is `staged` and the session is in a worktree:
        the fork's writes then wait in the inbox instead of reaching the shared memory."""
        name = self.host.worktree()
        # `worktree` is the worktree feature's settings section (`baseRef` too): an extra.
        section = settings.extras.get("worktree")
        memory = section.get("memory", "shared") if isinstance(section, dict) else "shared"
        if name is None or memory != "staged":
            return None
        return f"{WORKTREE_TAG}{name}"

    # req: MR5
    def _record_provenance(self, record: ExtractionRecord) -> None:
        run = run_id_for(record.started_at, record.session_id)
        files = sorted({Path(w) for w in record.writes})
        record_writes(
            self.host.paths.project_dir, files, "fork", run=run, session=record.session_id
        )

    def _write_audit(self, record: ExtractionRecord) -> None:
        folder = self.host.audit_dir
        path = folder / f"{run_id_for(record.started_at, record.session_id)}.json"
        with contextlib.suppress(OSError):
            atomic_write_text(path, json.dumps(asdict(record), indent=2))

    async def wait(self) -> None:
        while self.running:
            assert self.task is not None
            try:
                await asyncio.shield(self.task)
            except asyncio.CancelledError:
                if not self.task.cancelled():
                    raise  # the waiter itself was cancelled
                # the run was cancelled on purpose: quit without waiting

    def on_settings(self, settings: EffectiveSettings) -> None:
        pass

    def on_messages_restored(self, messages: list[Message]) -> None:
        pass

    # -- the memory flush before a compaction (MR4) ---------------------------------------------
    flushes_memory = True  # after the other PreCompact hooks: a blocked compaction flushes nothing

    async def run_pre_compact(self, trigger: CompactionTrigger, custom: str | None) -> str:
        await self.flush()
        return ""

    async def run_post_compact(self, trigger: CompactionTrigger, summary: str) -> None:
        return None

    # req: MR4
    async def flush(self) -> None:
        """Turns no extraction has seen are about to be summarised away: extract them first
        (auto memory on and its writes not `off`), waiting for a run already going."""
        if self.closing or not self.auto.refresh(self.host.settings()):
            return
        await self.wait()
        if not self.auto.take_unseen_turns():
            return
        self.host.notify("memory", "extracting memories before the compaction")
        self._start()
        await self.wait()

    # req: C4
    # req: UX9
    def cancel(self) -> None:
        """Quit without waiting (a second Ctrl+Q): the run stops and is recorded as cancelled."""
        self.closing = True
        if self.task is not None and not self.task.done():
            self.task.cancel()

    async def aclose(self) -> None:
        """Exit awaits the fork in flight: its writes are never cut off (C4)."""
        self.closing = True
        if self.running:
            self.host.notify("memory", "waiting for the memory extraction to finish…")
        await self.wait()
