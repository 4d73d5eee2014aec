"""Bash: run a shell command in the working directory, in its own process group."""

from __future__ import annotations

import asyncio
import math
import os
import resource
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Annotated

from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.background import BackgroundManager, new_command_task_id, started_result
from wave_tui.tools.base import ToolContext, ToolError, ToolResult
from wave_tui.tools.foreground import ForegroundTask
from wave_tui.tools.processes import (
    MAX_OUTPUT_CHARS,
    join_ends,
    kill_process_group,
    truncate_output,
)

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0
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
    return join_ends(head, tail, f"about {size - 2 * half} bytes")


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


def _label(description: str | None, command: str, fallback: str) -> str:
    """The first non-blank line of the description, else of the command (never raises)."""
    for text in (description or "", command):
        for line in text.splitlines():
            if line.strip():
                return line.strip()
    return fallback


def _outcome(description: str | None, output: str) -> str:
    """A finished command's summary: its description, else how much it printed. Never the
    command again: the chat's row already shows it beside the summary, and a long command
    repeated there filled the screen."""
    if description and description.strip():
        return _label(description, "", "Bash")
    lines = output.rstrip("\n").count("\n") + 1 if output.strip() else 0
    return "no output" if lines == 0 else f"{lines} line{'s' if lines != 1 else ''} of output"


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

    def __init__(self, background: BackgroundManager | None = None) -> None:
        # The session's runner (BashOutput and TaskStop read it); a bare tool keeps its own.
        self.background = background or BackgroundManager(_log_dir() / "background")

    async def call(self, args: BashArgs, ctx: ToolContext) -> ToolResult:
        command = args.command
        if not command.strip():
            raise ToolError("command must not be empty.")
        if "\0" in command:
            raise ToolError("command must not contain NUL bytes.")
        timeout = _timeout(args.timeout)
        label = _label(args.description, command, self.name)
        env = {**os.environ, **(ctx.env or {})}
        if not ctx.workdir.is_dir():
            raise ToolError(f"Working directory does not exist: {ctx.workdir}")
        if args.run_in_background:
            return await self.background.launch(
                command, ctx.workdir, env, label, ctx.command_prefix
            )
        if ctx.abort.is_set():
            return ToolResult(
                content="Aborted before the command started.", is_error=True, summary="Aborted"
            )

        # A named file where a background command's would be: should the command move to the
        # background (Ctrl+B), it keeps writing there and the file is its output file.
        task_id = new_command_task_id()
        output_dir = self.background.output_dir
        await asyncio.to_thread(output_dir.mkdir, parents=True, exist_ok=True)
        path = output_dir / f"{task_id}.log"
        moved = asyncio.Event()
        out = await asyncio.to_thread(path.open, "w+b")
        try:
            proc = await asyncio.create_subprocess_exec(
                *ctx.command_prefix,
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
            waiter: asyncio.Future[object] = asyncio.ensure_future(proc.wait())
            aborter: asyncio.Future[object] = asyncio.ensure_future(ctx.abort.wait())
            mover: asyncio.Future[object] = asyncio.ensure_future(moved.wait())
            foreground = self.background.foreground
            foreground.register(ForegroundTask(task_id, moved.set, label, "bash"))
            done: set[asyncio.Future[object]] = set()
            try:
                done, _ = await asyncio.wait(
                    {waiter, aborter, mover}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
                if mover in done and waiter not in done:
                    adopted = self.background.adopt(task_id, command, label, proc, path)
                    return started_result(adopted)
            finally:
                foreground.unregister(task_id)
                aborter.cancel()
                mover.cancel()
                if not waiter.done() and self.background.get(task_id) is None:
                    # Covers timeout, abort, and our own cancellation: never leave the tree running.
                    await asyncio.shield(kill_process_group(pgid, proc))
                waiter.cancel()
            output = await asyncio.to_thread(_read_output, out)
        finally:
            out.close()
            if self.background.get(task_id) is None:  # not moved: the file was only ours
                await asyncio.shield(asyncio.to_thread(path.unlink, missing_ok=True))

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
        outcome = _outcome(args.description, output)
        return ToolResult(
            content=body,
            is_error=code != 0,
            summary=outcome if code == 0 else f"{outcome} ({_status_line(code)})",
        )
