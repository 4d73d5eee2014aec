"""Runs one hook command: JSON on stdin, cwd = project root, its own process group.

A hook past its timeout is killed with its whole process group (a `sleep` started by the hook's
shell must not outlive it), and counts as a warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.records import record
from wave_tui.features.user_hooks.config import HookSpec
from wave_tui.features.user_hooks.output import HookOutput, parse_output

HookOutcome = Literal["ok", "blocked", "warning", "timeout", "not_found"]
EXIT_BLOCK = 2
SHELL_NOT_FOUND = 127
SHELL_NOT_EXECUTABLE = 126
MAX_CAPTURE = 256 * 1024  # bytes kept of a hook's stdout / stderr each
READ_CHUNK = 64 * 1024
DRAIN_AFTER_EXIT_S = 0.5


@record
class HookRun:
    spec: HookSpec
    outcome: HookOutcome
    exit_code: int | None
    stdout: str
    stderr: str
    output: HookOutput | None = None  # stdout as JSON hook output (exit 0 only), else None

    @property
    def plain_stdout(self) -> str:
        """Stdout that is not JSON hook output, of a hook that exited 0 ("" otherwise)."""
        return self.stdout.strip() if self.outcome == "ok" and self.output is None else ""

    def warning_line(self) -> str | None:
        """The one line shown for a hook that did not succeed (None when it did or blocked)."""
        name = f"{self.spec.event} hook `{self.spec.command}`"
        if self.outcome == "timeout":
            return f"{name} timed out after {self.spec.timeout_s:g}s and was killed"
        if self.outcome == "not_found":
            return f"{name}: command not found or not executable"
        if self.outcome == "warning":
            detail = _first_line(self.stderr)
            return f"{name} exited with {self.exit_code}" + (f": {detail}" if detail else "")
        return None


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


# req: HK5
async def run_hook(
    spec: HookSpec, payload: Mapping[str, Any], cwd: Path, env: Mapping[str, str]
) -> HookRun:
    """Run `spec` once; never raises for the hook's own failures."""
    data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
    try:
        proc = await asyncio.create_subprocess_shell(
            spec.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env={**env, **dict(spec.env)},
            start_new_session=True,
        )
    except OSError as exc:
        return HookRun(spec, "not_found", None, "", str(exc))
    try:
        async with asyncio.timeout(spec.timeout_s):  # not wait_for: see llm/client.py _open
            out, err = await _talk(proc, data)
    except TimeoutError:
        _kill_group(proc.pid)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await _exited(proc)
        _close_pipes(proc)
        return HookRun(spec, "timeout", None, "", "")
    except asyncio.CancelledError:
        _kill_group(proc.pid)
        raise
    code = proc.returncode if proc.returncode is not None else -1
    stdout = out.decode("utf-8", "replace")
    stderr = err.decode("utf-8", "replace")
    outcome = _outcome(code)
    output = parse_output(stdout) if outcome == "ok" else None
    return HookRun(spec, outcome, code, stdout, stderr, output)


# req: HK4
def _outcome(code: int) -> HookOutcome:
    if code == 0:
        return "ok"
    if code == EXIT_BLOCK:
        return "blocked"
    if code in (SHELL_NOT_FOUND, SHELL_NOT_EXECUTABLE):
        return "not_found"
    return "warning"


async def _exited(proc: asyncio.subprocess.Process) -> int:
    """The hook's exit code once its shell ended. Not `proc.wait()`: before Python 3.12 that
    also waits for every pipe to close, which a child the hook left behind may never do."""
    delay = 0.005
    while proc.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)
    return proc.returncode


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    # Our ends of the pipes a left-over child still holds: closed, not left to the GC.
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def _read_capped(stream: asyncio.StreamReader, kept: bytearray) -> None:
    """Read `stream` to its end, keeping its first MAX_CAPTURE bytes (the rest is read and
    dropped, so a chatty hook neither fills wave's memory nor blocks on a full pipe)."""
    while chunk := await stream.read(READ_CHUNK):
        room = MAX_CAPTURE - len(kept)
        if room > 0:
            kept += chunk[:room]


async def _talk(proc: asyncio.subprocess.Process, data: bytes) -> tuple[bytes, bytes]:
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    with contextlib.suppress(OSError):
        proc.stdin.close()
    out, err = bytearray(), bytearray()
    readers = asyncio.gather(_read_capped(proc.stdout, out), _read_capped(proc.stderr, err))
    try:
        await _exited(proc)
        # A child the hook left running (`server &`) may hold the pipes open for good: once the
        # hook itself ended, what it wrote is read for a moment, then the turn goes on.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(readers), DRAIN_AFTER_EXIT_S)
    finally:
        readers.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await readers
        _close_pipes(proc)
    return bytes(out), bytes(err)
