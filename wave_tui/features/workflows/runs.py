"""What a workflow run did, as it goes: its phases, each phase's agents with their tokens and
results, and how the run ended; kept per session and written to
`~/.wave/projects/<id>/<session-id>/workflows/<run-id>.json` after every change.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, field
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.fileio import atomic_write_text
from wave_tui.config.records import record

RunStatus = Literal["running", "completed", "failed", "stopped"]
AgentStatus = Literal["running", "completed", "failed", "stopped"]
RESULT_CHARS = 4000  # an agent's result as the record keeps it


@record(frozen=False)
class AgentRecord:
    description: str
    subagent_type: str
    status: AgentStatus = "running"
    tokens: int = 0
    result: str = ""


@record(frozen=False)
class PhaseRecord:
    name: str
    agents: list[AgentRecord] = field(default_factory=list)


@record(frozen=False)
class WorkflowRun:
    id: str
    name: str
    args: Any
    background: bool
    record_file: Path
    status: RunStatus = "running"
    phases: list[PhaseRecord] = field(default_factory=list)
    result: str = ""
    error: str = ""
    logs: str = ""
    started_at: float = field(default_factory=time.time)  # wall clock, seconds
    ended_at: float | None = None  # set by the first change that ends the run

    @property
    def phase(self) -> str:
        """The phase running now (or the last one)."""
        return self.phases[-1].name if self.phases else ""

    @property
    def agents_started(self) -> int:
        return sum(len(p.agents) for p in self.phases)

    @property
    def tokens(self) -> int:
        return sum(a.tokens for p in self.phases for a in p.agents)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["record_file"] = str(self.record_file)
        return data


def new_run_id() -> str:
    return f"w{uuid.uuid4().hex[:8]}"


class WorkflowRuns:
    """The runs of one session, their tasks, and the record files (written off the loop, one
    write at a time per run so the last state always lands last)."""

    def __init__(self, record_file: Callable[[str], Path]) -> None:
        self._record_file = record_file
        self._runs: dict[str, WorkflowRun] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._writes: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()

    def new(self, name: str, args: Any, background: bool) -> WorkflowRun:
        run_id = new_run_id()
        run = WorkflowRun(run_id, name, args, background, self._record_file(run_id))
        self._runs[run_id] = run
        return run

    def runs(self) -> list[WorkflowRun]:
        return list(self._runs.values())

    def get(self, run_id: str) -> WorkflowRun | None:
        return self._runs.get(run_id)

    def attach(self, run: WorkflowRun, task: asyncio.Task[None]) -> None:
        self._tasks[run.id] = task

    def changed(self, run: WorkflowRun) -> None:
        """`run` changed: write its record soon."""
        if run.status != "running" and run.ended_at is None:
            run.ended_at = time.time()
        self._dirty.add(run.id)
        writer = self._writes.get(run.id)
        if writer is None or writer.done():
            self._writes[run.id] = asyncio.get_running_loop().create_task(self._write(run))

    async def _write(self, run: WorkflowRun) -> None:
        while run.id in self._dirty:
            self._dirty.discard(run.id)
            text = json.dumps(run.to_json(), indent=2, ensure_ascii=False, default=str) + "\n"
            await asyncio.to_thread(_write_record, run.record_file, text)

    async def flushed(self, run_id: str) -> None:
        """Until the run's record file holds its latest state."""
        writer = self._writes.get(run_id)
        if writer is not None:
            await asyncio.shield(writer)

    async def wait(self, run_id: str) -> WorkflowRun:
        task = self._tasks.get(run_id)
        if task is not None:
            await asyncio.gather(asyncio.shield(task), return_exceptions=True)
        await self.flushed(run_id)
        return self._runs[run_id]

    async def stop(self, run_id: str) -> WorkflowRun | None:
        """Stop a running run (its agents are cancelled); None when there is no such run."""
        run = self._runs.get(run_id)
        if run is None:
            return None
        task = self._tasks.get(run_id)
        if run.status == "running" and task is not None and not task.done():
            run.status = "stopped"
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self.changed(run)
        await self.flushed(run_id)
        return run

    async def aclose(self) -> None:
        for run_id, task in list(self._tasks.items()):
            if not task.done():
                await self.stop(run_id)
        await asyncio.gather(*self._writes.values(), return_exceptions=True)


def _write_record(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text)
