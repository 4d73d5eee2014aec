"""The one background runner: `Bash(run_in_background=true)`, background agents
(`Agent(run_in_background=true)`), `BashOutput`, `TaskStop` (BG1, BG2, BG4, BA1–BA3).

Each command runs in its own process group with its output in a file under
`~/.wave/background/` (readable with Read or BashOutput). A finished command (not a stopped one)
is queued as a completion for the notifier to announce before the next request.

Exit policy (BG4): closing the manager ends every command it started, in the app and in `wave -p`
alike — SIGTERM to the whole process group, then SIGKILL after a grace period. `-p` therefore
does not wait for servers started in the run; a command that must finish belongs in the
foreground. A finalizer does the same on interpreter exit should `aclose` never run.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import threading
import uuid
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Literal

from wave_tui.config.records import record
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult
from wave_tui.tools.foreground import ForegroundTasks
from wave_tui.tools.processes import (
    GROUP_GRACE_S,
    KILL_GRACE_S,
    group_alive,
    signal_group,
    truncate_output,
)
from wave_tui.tools.task_output import read_from, task_output

BackgroundStatus = Literal["running", "completed", "failed", "killed"]
BackgroundKind = Literal["bash", "agent"]
# A background agent's work: given a function that records a progress line, its final text.
AgentWork = Callable[[Callable[[str], None]], Awaitable[str]]
SESSION_ENDED = "[stopped: the session ended before the agent finished]"


@record
class BackgroundTask:
    id: str
    command: str
    label: str
    pid: int
    output_file: Path
    status: BackgroundStatus = "running"
    exit_code: int | None = None
    kind: BackgroundKind = "bash"

    @property
    def summary(self) -> str:
        if self.kind == "agent":
            return f'Background agent "{self.label}" ' + (
                "is running" if self.status == "running" else self.status
            )
        if self.status == "running":
            return f'Background command "{self.label}" is running'
        if self.status == "killed":
            return f'Background command "{self.label}" was stopped'
        return f'Background command "{self.label}" {self.status} (exit code {self.exit_code})'


BackgroundListener = Callable[[list[BackgroundTask]], None]


def _kill_groups_now(pgids: set[int]) -> None:
    """Last resort at interpreter exit: no event loop to wait on, so straight to SIGKILL."""
    for pgid in list(pgids):
        signal_group(pgid, signal.SIGKILL)
    pgids.clear()


async def _wait_groups_gone(pgids: set[int]) -> None:
    """Signals are delivered asynchronously: give killed groups a moment to be gone. (Zombies
    that the container's init never reaps keep a group "alive", hence the bound.)"""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GROUP_GRACE_S
    while any(group_alive(g) for g in pgids) and loop.time() < deadline:
        await asyncio.sleep(0.02)


# Every background command (and whatever it starts) carries these in its environment: a
# process that left its group (`setsid`, a double fork) is still found and ended — at TaskStop,
# at close, and by the guard's sweeper when wave itself is killed (`mcp/guard.py --sweep-env`).
SESSION_MARK = "WAVE_BACKGROUND_SESSION"
TASK_MARK = "WAVE_BACKGROUND_TASK"


def _guard_script() -> str | None:
    spec = importlib.util.find_spec("wave_tui.mcp.guard")  # its path only: it runs apart
    return spec.origin if spec is not None else None


async def _spawn_guard(marker: str, parent: int, *, pdeathsig: bool) -> asyncio.subprocess.Process:
    script = _guard_script()
    if script is None:
        raise OSError("the process guard is missing")
    argv = [sys.executable, "-I", script, "--parent-pid", str(parent), "--sweep-env", marker]
    if pdeathsig:
        argv.append("--pdeathsig")
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


async def sweep_marked(marker: str) -> None:
    """End every process carrying `marker` now (a guard told its parent is already gone)."""
    with contextlib.suppress(OSError):
        proc = await _spawn_guard(marker, 0, pdeathsig=False)
        await proc.wait()


class BackgroundManager:
    """Owns every background command of one session (and the tasks watching them)."""

    def __init__(self, output_dir: Path) -> None:
        self.output_dir = output_dir
        self._mark = uuid.uuid4().hex
        self._sweeper: asyncio.subprocess.Process | None = None  # ends them if wave is killed
        self._tasks: dict[str, BackgroundTask] = {}
        self._procs: dict[str, asyncio.subprocess.Process] = {}
        self._watchers: dict[str, asyncio.Task[None]] = {}
        self._progress: dict[str, list[str]] = {}  # a background agent's lines so far
        self._pgids: set[int] = set()  # groups that may still have members
        self._finished: list[str] = []  # completed/failed ids not yet announced
        self._listeners: list[BackgroundListener] = []
        self._closed = False
        # What runs in the foreground now and could move here (Ctrl+B).
        self.foreground = ForegroundTasks()
        weakref.finalize(self, _kill_groups_now, self._pgids)

    # -- queries --------------------------------------------------------------------------------
    def tasks(self) -> list[BackgroundTask]:
        return list(self._tasks.values())

    def get(self, task_id: str) -> BackgroundTask | None:
        return self._tasks.get(task_id)

    def subscribe(self, listener: BackgroundListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self) -> None:
        for listener in list(self._listeners):
            listener(self.tasks())

    async def wait(self, task_id: str) -> BackgroundTask:
        """Until the command ends (a `-p` run that chooses to wait, tests)."""
        watcher = self._watchers.get(task_id)
        if watcher is None:
            raise ToolError(f"No background task with id {task_id}.")
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(watcher)
        return self._tasks[task_id]

    def take_completions(self) -> list[BackgroundTask]:
        """Finished commands not yet announced (stopped ones never are), oldest first."""
        done = [self._tasks[i] for i in self._finished]
        self._finished.clear()
        return done

    def progress(self, task_id: str) -> list[str]:
        """A background agent's progress lines so far ([] for a command)."""
        return list(self._progress.get(task_id, ()))

    # -- life cycle -----------------------------------------------------------------------------
    # req: BA1
    async def start_agent(
        self, label: str, work: AgentWork, lines: list[str] | None = None, task_id: str = ""
    ) -> BackgroundTask:
        """Run `work` (a subagent) in the background; its lines and final text go to its
        output file. Answered at once: the completion is announced like a command's. `lines`:
        the progress a foreground subagent moved here had so far (it goes on appending)."""
        if self._closed:
            raise ToolError("The session is closing; no new background agents.")
        task_id = task_id or new_agent_task_id()
        await asyncio.to_thread(self.output_dir.mkdir, parents=True, exist_ok=True)
        output = self.output_dir / f"{task_id}.log"
        await asyncio.to_thread(output.write_text, "")
        task = BackgroundTask(task_id, label, label, 0, output, kind="agent")
        self._tasks[task_id] = task
        self._progress[task_id] = lines if lines is not None else []
        self._watchers[task_id] = asyncio.create_task(self._run_agent(task_id, work))
        self._emit()
        return task

    async def _run_agent(self, task_id: str, work: AgentWork) -> None:
        lines = self._progress[task_id]
        status: BackgroundStatus = "completed"
        try:
            text = await work(lines.append)
        except asyncio.CancelledError:
            # Stopped (TaskStop) or the session ended: marked, never announced.
            if self._tasks[task_id].status == "running":
                self._tasks[task_id] = replace(self._tasks[task_id], status="killed")
            ending = SESSION_ENDED if self._closed else "[stopped]"
            await asyncio.shield(self._write_agent_output(task_id, [*lines, ending]))
            raise
        except Exception as exc:  # the subagent's own failure is its result
            status, text = "failed", f"The agent failed: {type(exc).__name__}: {exc}"
        await self._write_agent_output(task_id, [*lines, "", text.strip() or "(no text)"])
        self._tasks[task_id] = replace(self._tasks[task_id], status=status)
        self._finished.append(task_id)
        self._emit()

    async def _write_agent_output(self, task_id: str, lines: list[str]) -> None:
        path = self._tasks[task_id].output_file
        await asyncio.to_thread(path.write_text, "\n".join(lines) + "\n")

    async def launch(
        self,
        command: str,
        workdir: Path,
        env: dict[str, str],
        label: str,
        prefix: tuple[str, ...] = (),
    ) -> ToolResult:
        """The Bash tool's background hook: start and answer at once with the task id.
        `prefix` is the argv the command runs under (the sandbox's)."""
        task = await self.start(command, workdir, env, label, prefix)
        return started_result(task)

    # req: SX9
    def adopt(
        self,
        task_id: str,
        command: str,
        label: str,
        proc: asyncio.subprocess.Process,
        output: Path,
    ) -> BackgroundTask:
        """Take over a foreground command that was moved to the background: it keeps running
        (its process group, its output file) and ends like one started here."""
        if self._closed:
            raise ToolError("The session is closing; no new background commands.")
        task = BackgroundTask(task_id, command, label, proc.pid, output)
        self._tasks[task_id] = task
        self._procs[task_id] = proc
        self._pgids.add(proc.pid)
        self._watchers[task_id] = asyncio.create_task(self._watch(task_id, proc))
        self._emit()
        return task

    # req: BG1
    async def start(
        self,
        command: str,
        workdir: Path,
        env: dict[str, str],
        label: str,
        prefix: tuple[str, ...] = (),
    ) -> BackgroundTask:
        if self._closed:
            raise ToolError("The session is closing; no new background commands.")
        task_id = new_command_task_id()
        env = {**env, SESSION_MARK: self._mark, TASK_MARK: f"{self._mark}-{task_id}"}
        if self._sweeper is None or self._sweeper.returncode is not None:
            with contextlib.suppress(OSError):
                self._sweeper = await _spawn_guard(
                    f"{SESSION_MARK}={self._mark}",
                    os.getpid(),
                    # PR_SET_PDEATHSIG fires when the spawning *thread* ends: main thread only.
                    pdeathsig=threading.current_thread() is threading.main_thread(),
                )
        await asyncio.to_thread(self.output_dir.mkdir, parents=True, exist_ok=True)
        output = self.output_dir / f"{task_id}.log"
        fh = await asyncio.to_thread(output.open, "wb")
        try:
            proc = await asyncio.create_subprocess_exec(
                *prefix,
                "bash",
                "-c",
                command,
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            fh.close()
        task = BackgroundTask(task_id, command, label, proc.pid, output)
        self._tasks[task_id] = task
        self._procs[task_id] = proc
        self._pgids.add(proc.pid)  # start_new_session: the child leads its own group
        self._watchers[task_id] = asyncio.create_task(self._watch(task_id, proc))
        self._emit()
        return task

    async def _watch(self, task_id: str, proc: asyncio.subprocess.Process) -> None:
        code = await proc.wait()
        task = self._tasks[task_id]
        if task.status == "killed":
            return
        if not group_alive(task.pid):
            self._pgids.discard(task.pid)  # nothing left to end; never signal a reused id later
        status: BackgroundStatus = "completed" if code == 0 else "failed"
        self._tasks[task_id] = replace(task, status=status, exit_code=code)
        self._finished.append(task_id)
        self._emit()

    async def stop(self, task_id: str) -> BackgroundTask:
        # req: BG2
        task = self._tasks.get(task_id)
        if task is None:
            raise ToolError(f"No background task with id {task_id}.")
        if task.status != "running":
            raise ToolError(f"Background task {task_id} is not running ({task.status}).")
        if task.kind == "agent":
            await self._cancel_agent(task_id)
            self._emit()
            return self._tasks[task_id]
        await self._kill(task_id)
        self._emit()
        return self._tasks[task_id]

    # req: BA3
    async def _cancel_agent(self, task_id: str) -> None:
        self._tasks[task_id] = replace(self._tasks[task_id], status="killed")
        watcher = self._watchers[task_id]
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher

    async def _kill(self, task_id: str) -> None:
        """Mark a running command stopped (never announced as finished), then end its group:
        SIGTERM, a grace period, SIGKILL."""
        self._tasks[task_id] = replace(self._tasks[task_id], status="killed")
        pgid = self._tasks[task_id].pid
        proc = self._procs[task_id]
        signal_group(pgid, signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._watchers[task_id]), KILL_GRACE_S)
        await asyncio.sleep(GROUP_GRACE_S if proc.returncode is None else 0)
        signal_group(pgid, signal.SIGKILL)  # whatever of the group is left, grandchildren too
        await sweep_marked(f"{TASK_MARK}={self._mark}-{task_id}")  # and what left the group
        await _wait_groups_gone({pgid})
        self._pgids.discard(pgid)
        with contextlib.suppress(asyncio.CancelledError):
            await self._watchers[task_id]

    # req: BG4
    async def aclose(self) -> None:
        """End every command still running and every group member left behind (BG4)."""
        if self._closed:
            return
        self._closed = True
        for task_id, task in list(self._tasks.items()):
            if task.status == "running" and task.kind == "agent":
                await self._cancel_agent(task_id)  # ended with its session, marked killed
            elif task.status == "running":
                await self._kill(task_id)
            elif task.pid in self._pgids:
                signal_group(task.pid, signal.SIGKILL)  # a finished leader's stray children
        if self._tasks:
            await sweep_marked(f"{SESSION_MARK}={self._mark}")
        await _wait_groups_gone(self._pgids)
        self._pgids.clear()
        if self._sweeper is not None and self._sweeper.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._sweeper.kill()
            await self._sweeper.wait()
        for watcher in self._watchers.values():
            watcher.cancel()
        await asyncio.gather(*self._watchers.values(), return_exceptions=True)


def new_command_task_id() -> str:
    return f"b{uuid.uuid4().hex[:8]}"


def new_agent_task_id() -> str:
    return f"a{uuid.uuid4().hex[:8]}"


def started_result(task: BackgroundTask) -> ToolResult:
    """A command's tool call answered at once: it runs in the background as `task`."""
    return ToolResult(
        content=(
            f"Command running in the background with task id {task.id} (pid {task.pid}).\n"
            f"Output is written to {task.output_file}; read it with BashOutput or Read. "
            f"Stop it with TaskStop. You will be told when it finishes."
        ),
        summary=f"{task.label} (background {task.id})",
    )


@tool_arguments
class BackgroundTaskArgs:
    task_id: Annotated[str, Arg("The background task id.")]


class BashOutputTool(TypedTool[BackgroundTaskArgs]):
    name = "BashOutput"
    description = (
        "Read the output a background command (Bash with run_in_background) wrote since the last "
        "BashOutput call for it, with its status. Takes task_id as returned by Bash."
    )
    read_only = True
    arguments = BackgroundTaskArgs

    def __init__(self, manager: BackgroundManager) -> None:
        self.manager = manager
        self._offsets: dict[str, int] = {}

    async def call(self, args: BackgroundTaskArgs, ctx: ToolContext) -> ToolResult:
        task_id = args.task_id.strip()
        task = self.manager.get(task_id)
        if task is None:
            raise ToolError(f"No background task with id {task_id}.")
        if task.kind == "agent":  # the older name reads every background task too
            return await task_output(self.manager, task)
        text, end = await asyncio.to_thread(
            read_from, task.output_file, self._offsets.get(task_id, 0)
        )
        self._offsets[task_id] = end
        body = truncate_output(text).rstrip("\n") or "(no new output)"
        return ToolResult(
            content=f"Status: {task.status}\n{task.summary}\n\n{body}", summary=task.summary
        )


class TaskStopTool(TypedTool[BackgroundTaskArgs]):
    name = "TaskStop"
    description = (
        "Stop a background task by its task_id: a command (its whole process tree is ended) or "
        "a background agent. A stopped task is not announced."
    )
    read_only = False
    arguments = BackgroundTaskArgs

    def __init__(self, manager: BackgroundManager) -> None:
        self.manager = manager

    async def call(self, args: BackgroundTaskArgs, ctx: ToolContext) -> ToolResult:
        task = await self.manager.stop(args.task_id.strip())
        return ToolResult(content=f"Stopped background task {task.id}.", summary=task.summary)
