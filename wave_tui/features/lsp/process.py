"""A language server's process: spawned behind the MCP guard launcher so it never outlives wave.

The guard (`wave_tui/mcp/guard.py`, stdlib only) puts the server in its own process group and
ends that group when wave is gone — PR_SET_PDEATHSIG when spawned from the main thread, a poll of
its parent pid otherwise — so a SIGKILLed wave leaves no server behind. The server's stderr is
read all along (a full pipe would stall it) and its last lines kept for `/lsp` and errors.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import importlib.util
import os
import shutil
import signal
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

STDERR_LINES_KEPT = 20
STOP_WAIT_S = 3.0
STREAM_LIMIT = 1024 * 1024  # one header line may be long when a server misbehaves


def guard_path() -> str:
    spec = importlib.util.find_spec("wave_tui.mcp.guard")
    assert spec is not None and spec.origin is not None
    return spec.origin


class ServerProcess:
    """The guard and the server under it; `stderr_tail()` is what the server last complained."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        self._drain = asyncio.create_task(self._read_stderr())

    @classmethod
    async def spawn(
        cls, command: str, args: tuple[str, ...], env: Mapping[str, str], cwd: Path
    ) -> ServerProcess:
        """Start it; a command that is not there is an OSError with the usual message."""
        if shutil.which(command, path=env.get("PATH")) is None:
            raise FileNotFoundError(f"command not found: {command}")
        line = [sys.executable, "-I", guard_path(), "--parent-pid", str(os.getpid())]
        # PR_SET_PDEATHSIG fires when the spawning *thread* ends: only safe from the main thread.
        if threading.current_thread() is threading.main_thread():
            line.append("--pdeathsig")
        proc = await asyncio.create_subprocess_exec(
            *line,
            "--",
            command,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            limit=STREAM_LIMIT,
        )
        return cls(proc)

    @property
    def reader(self) -> asyncio.StreamReader:
        assert self.proc.stdout is not None
        return self.proc.stdout

    @property
    def writer(self) -> asyncio.StreamWriter:
        assert self.proc.stdin is not None
        return self.proc.stdin

    def server_pid(self) -> int | None:
        """The language server's own pid (the guard's child), where /proc tells it."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        with contextlib.suppress(OSError, ValueError):
            first = children.read_text().split()
            return int(first[0]) if first else None
        return None

    async def _read_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            while line := await stream.readline():
                text = line.decode(errors="replace").rstrip()
                if text:
                    self._stderr.append(text)

    def stderr_tail(self, lines: int = 3) -> str:
        return " | ".join(list(self._stderr)[-lines:])

    async def wait(self) -> int:
        code = await self.proc.wait()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._drain), 1.0)  # its last words
        return code

    async def stop(self) -> None:
        """Wait a little for a clean exit, then have the guard end the group."""
        if self.proc.returncode is None:
            with contextlib.suppress(OSError, RuntimeError):
                self.writer.close()
            try:
                await asyncio.wait_for(self.proc.wait(), STOP_WAIT_S)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.send_signal(signal.SIGTERM)  # the guard ends the whole group
                try:
                    await asyncio.wait_for(self.proc.wait(), STOP_WAIT_S)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        self.proc.kill()
                    await self.proc.wait()
        self._drain.cancel()
        await asyncio.gather(self._drain, return_exceptions=True)
