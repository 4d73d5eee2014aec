"""A user's `wave daemon`, driven by real `wave daemon …` processes against the scripted model
server; whatever daemon a test started is killed at its end."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import default_sigint
from tests.model_server import ModelServer
from tests.wave_cli import WAVE, run_wave
from wave_tui.config.paths import WavePaths, home_dir

CONDITION_TIMEOUT_S = 60.0


def daemon_paths() -> WavePaths:
    return WavePaths.for_workdir(home_dir())


def daemon_pid() -> int | None:
    """The running daemon's pid (it holds the lock file and wrote its pid there)."""
    try:
        pid = int(daemon_paths().daemon_lock.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def _alive(pid: int) -> bool:
    """A live `wave daemon serve` process (not a zombie, not a recycled pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"serve" in cmdline and b"daemon" in cmdline and _running(pid)


def _running(pid: int) -> bool:
    """Not yet dead. A dying process has no command line any more while it still closes its
    files, and its main thread is a zombie while its other threads still hold them (the
    socket among them): gone is when no thread is left but zombies."""
    try:
        threads = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for thread in threads:
        try:
            state = (thread / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            return True
    return False


def _log() -> str:
    """The daemon's stderr so far (in a failed assertion's message)."""
    try:
        return daemon_paths().daemon_log.read_text(errors="replace")
    except OSError:
        return ""


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Poll a condition on another process (there is no event to wait on across processes)."""
    deadline = time.monotonic() + CONDITION_TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def kill_daemon() -> int | None:
    """SIGKILL the running daemon and wait until it is gone; its pid, or None."""
    pid = daemon_pid()
    if pid is None:
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not _running(pid), f"daemon {pid} to die")
    return pid


class Daemon:
    """`wave daemon …` in `project`, pointed at the model server."""

    def __init__(self, server: ModelServer, project: Path) -> None:
        self.server = server
        self.project = project
        self.started: list[subprocess.Popen[str]] = []

    def run(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return run_wave("daemon", *args, cwd=self.project, server=self.server, env=env)

    def ok(self, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode == 0, (args, done.returncode, done.stdout, done.stderr, _log())
        return done.stdout

    def create(self, *args: str) -> str:
        return self.ok("create", *args).strip()

    def spawn(self, *args: str) -> subprocess.Popen[str]:
        """A client as a real process of its own (to kill mid-request)."""
        env = self.server.env(PYTHONPATH=str(Path(__file__).resolve().parents[2]))
        process = subprocess.Popen(
            [*WAVE, "daemon", *args],
            cwd=self.project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=default_sigint,  # a test sends it SIGINT, even from a backgrounded run
        )
        self.started.append(process)
        return process

    def status(self, session: str) -> dict[str, Any]:
        """The session as `list --json` shows it."""
        sessions = json.loads(self.ok("list", "--json"))
        return next(s for s in sessions if s["id"] == session)

    def wait_for(self, session: str, what: str, test: Callable[[dict[str, Any]], bool]) -> None:
        wait_until(lambda: test(self.status(session)), what)

    def close(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.communicate()
        kill_daemon()


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """No extraction fork: every model request a test scripts is the session's own."""
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.fixture
def daemon(model_server: ModelServer, project: Path) -> Iterator[Daemon]:
    driver = Daemon(model_server, project)
    try:
        yield driver
    finally:
        driver.close()
