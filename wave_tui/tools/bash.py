"""Bash: run a shell command in the working directory, in its own process group."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import resource
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Annotated, Protocol

from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0
MAX_OUTPUT_CHARS = 30_000
KILL_GRACE_S = 2.0  # for bash itself to exit after SIGTERM
# For the rest of the group. Short: orphans the container's init never reaps stay "alive" as zombies.
GROUP_GRACE_S = 0.5
# Output goes to a temp file rather than a pipe: a backgrounded grandchild (`server &`) holding the
# pipe open would otherwise keep us waiting long after bash itself exited.
_READ_EDGE_BYTES = MAX_OUTPUT_CHARS * 4

DESCRIPTION = """\
Run a bash command (`bash -c`) in the working directory and return its combined stdout and stderr.
- timeout: seconds, default 120, at most 600. The whole process tree is killed on timeout.
- There is no stdin: interactive commands (editors, pagers, prompts) will not work; pass flags such \
as --yes or --no-pager instead.
- Output over 30000 characters is shortened to its beginning and end.
- run_in_background: start a long-running command (e.g. a dev server) and return at once with its \
pid and a log file you can Read later.
- Prefer the Read, Glob, Grep, Edit and Write tools over cat, find, grep, sed or echo redirection.
- description: a short (5-10 word) summary of what the command does, shown to the user."""


def _log_dir() -> Path:
    path = Path(tempfile.gettempdir()) / f"wave-tui-bash-{os.getuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def kill_process_group(pgid: int, proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, then SIGKILL whatever is still there after a grace period."""
    signal_group(pgid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(KILL_GRACE_S):  # not wait_for: see llm/client.py _open
            await proc.wait()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GROUP_GRACE_S
    while group_alive(pgid) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    signal_group(pgid, signal.SIGKILL)
    await proc.wait()


def _join(head: str, tail: str, omitted: str) -> str:
    return f"{head}\n\n... [{omitted} of output truncated] ...\n\n{tail}"


def truncate_output(text: str) -> str:
    """Keep the head and tail of over-long output: errors and summaries live at the ends."""
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    half = MAX_OUTPUT_CHARS // 2
    return _join(text[:half], text[-half:], f"{len(text) - 2 * half} characters")


def _read_output(fh: IO[bytes]) -> str:
    size = fh.seek(0, os.SEEK_END)
    fh.seek(0)
    if size <= 2 * _READ_EDGE_BYTES:
        return truncate_output(fh.read().decode("utf-8", "replace"))
    # Huge output: decode only the two ends instead of the whole file.
    half = MAX_OUTPUT_CHARS // 2
    head = fh.read(_READ_EDGE_BYTES).decode("utf-8", "replace")[:half]
    fh.seek(size - _READ_EDGE_BYTES)
    tail = fh.read().decode("utf-8", "replace")[-half:]
    return _join(head, tail, f"about {size - 2 * half} bytes")


def _file_size_cap(limit: int | None) -> Callable[[], None] | None:
    """A child-side setup capping every file the command writes, its output file included (X14):
    past the cap the kernel stops the writer with SIGXFSZ, so `cat /dev/zero` cannot fill /tmp."""
    if limit is None:
        return None

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return cap


def _timeout(value: float | None) -> float:
    if value is None:
        return DEFAULT_TIMEOUT_S
    if math.isnan(value) or value <= 0:
        raise ToolError("Parameter `timeout` must be a positive number of seconds.")
    return min(value, MAX_TIMEOUT_S)


def _status_line(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"Terminated by {name}"
    return f"Exit code: {returncode}"


def _label(description: str | None, command: str) -> str:
    """The first non-blank line of the description, else of the command (never raises)."""
    for text in (description or "", command):
        for line in text.splitlines():
            if line.strip():
                return line.strip()
    return "Bash"


class BackgroundLauncher(Protocol):
    """Where `run_in_background` commands go when a session owns them (tools/background.py)."""

    async def launch(
        self, command: str, workdir: Path, env: dict[str, str], label: str
    ) -> ToolResult: ...


@tool_arguments
class BashArgs:
    command: Annotated[str, Arg("The command to run.")]
    timeout: Annotated[
        float | None, Arg("Timeout in seconds (default 120, max 600).", unit="seconds")
    ] = None
    description: Annotated[
        str | None, Arg("Short description of what the command does (5-10 words).")
    ] = None
    run_in_background: Annotated[
        bool, Arg("Start the command in the background and return immediately.")
    ] = False


class BashTool(TypedTool[BashArgs]):
    name = "Bash"
    description = DESCRIPTION
    read_only = False
    arguments = BashArgs

    def __init__(self, launcher: BackgroundLauncher | None = None) -> None:
        self.launcher = launcher
        self.background: dict[int, Path] = {}  # pid -> log file of commands started in background

    async def call(self, args: BashArgs, ctx: ToolContext) -> ToolResult:
        command = args.command
        if not command.strip():
            raise ToolError("command must not be empty.")
        if "\0" in command:
            raise ToolError("command must not contain NUL bytes.")
        timeout = _timeout(args.timeout)
        label = _label(args.description, command)
        env = {**os.environ, **(ctx.env or {})}
        if not ctx.workdir.is_dir():
            raise ToolError(f"Working directory does not exist: {ctx.workdir}")
        if args.run_in_background:
            if self.launcher is not None:
                return await self.launcher.launch(command, ctx.workdir, env, label)
            return self._start_background(command, ctx.workdir, env, label)
        if ctx.abort.is_set():
            return ToolResult(
                content="Aborted before the command started.", is_error=True, summary="Aborted"
            )

        with tempfile.TemporaryFile(dir=_log_dir()) as out:
            proc = await asyncio.create_subprocess_exec(
                "bash",
                "-c",
                command,
                cwd=ctx.workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_file_size_cap(ctx.output_limit_bytes),
            )
            pgid = proc.pid  # start_new_session makes the child its own group leader
            waiter = asyncio.ensure_future(proc.wait())
            aborter = asyncio.ensure_future(ctx.abort.wait())
            try:
                done, _ = await asyncio.wait(
                    {waiter, aborter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                aborter.cancel()
                if not waiter.done():
                    # Covers timeout, abort, and our own cancellation: never leave the tree running.
                    await asyncio.shield(kill_process_group(pgid, proc))
                waiter.cancel()
            output = await asyncio.to_thread(_read_output, out)

        if waiter not in done:
            reason = "aborted by the user" if aborter in done else f"timed out after {timeout:g}s"
            content = f"{output.rstrip()}\n\nCommand {reason}; its process group was killed."
            return ToolResult(content=content.lstrip(), is_error=True, summary=f"Command {reason}")

        code = proc.returncode if proc.returncode is not None else -1
        body = output.rstrip("\n") or "(no output)"
        if code != 0:
            body += f"\n\n{_status_line(code)}"
        if code in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ) and ctx.output_limit_bytes is not None:
            body += f" (output stopped at the {ctx.output_limit_bytes}-byte limit)"
        return ToolResult(
            content=body,
            is_error=code != 0,
            summary=label if code == 0 else f"{label} ({_status_line(code)})",
        )

    def _start_background(
        self, command: str, workdir: Path, env: dict[str, str], label: str
    ) -> ToolResult:
        fd, name = tempfile.mkstemp(prefix="bg-", suffix=".log", dir=_log_dir())
        log = Path(name)
        with os.fdopen(fd, "wb") as fh:
            proc = subprocess.Popen(
                ["bash", "-c", command],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.background[proc.pid] = log
        # Reap the child so it never lingers as a zombie, and leave its exit status in the log.
        threading.Thread(target=self._reap, args=(proc, log), daemon=True).start()
        return ToolResult(
            content=(
                f"Started in the background with pid {proc.pid}. Output is written to {log}; "
                f"Read that file to check on it, or `kill -- -{proc.pid}` to stop it."
            ),
            summary=f"{label} (background, pid {proc.pid})",
        )

    def _reap(self, proc: subprocess.Popen[bytes], log: Path) -> None:
        code = proc.wait()
        with contextlib.suppress(OSError), log.open("a", encoding="utf-8") as fh:
            fh.write(f"\n[{_status_line(code)}]\n")
        self.background.pop(proc.pid, None)

    def stop_background(self) -> None:
        """Kill every background command still running (call when the session ends)."""
        for pid in list(self.background):
            signal_group(pid, signal.SIGTERM)
