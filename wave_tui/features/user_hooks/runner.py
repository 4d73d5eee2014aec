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

HookOutcome = Literal["ok", "blocked", "warning", "timeout", "not_found"]
EXIT_BLOCK = 2
SHELL_NOT_FOUND = 127
SHELL_NOT_EXECUTABLE = 126
MAX_CAPTURE = 256 * 1024  # bytes kept of a hook's stdout / stderr each


@record
class HookRun:
    spec: HookSpec
    outcome: HookOutcome
    exit_code: int | None
    stdout: str
    stderr: str

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
        await proc.wait()
        return HookRun(spec, "timeout", None, "", "")
    except asyncio.CancelledError:
        _kill_group(proc.pid)
        raise
    code = proc.returncode if proc.returncode is not None else -1
    stdout = out[:MAX_CAPTURE].decode("utf-8", "replace")
    stderr = err[:MAX_CAPTURE].decode("utf-8", "replace")
    return HookRun(spec, _outcome(code), code, stdout, stderr)


# req: HK4
def _outcome(code: int) -> HookOutcome:
    if code == 0:
        return "ok"
    if code == EXIT_BLOCK:
        return "blocked"
    if code in (SHELL_NOT_FOUND, SHELL_NOT_EXECUTABLE):
        return "not_found"
    return "warning"


async def _talk(proc: asyncio.subprocess.Process, data: bytes) -> tuple[bytes, bytes]:
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    with contextlib.suppress(OSError):
        proc.stdin.close()
    out, err = await asyncio.gather(proc.stdout.read(), proc.stderr.read())
    await proc.wait()
    return out, err
