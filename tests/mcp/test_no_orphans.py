"""No MCP server process outlives its parent, on any exit path (MC8).

A real parent process (a small script that starts the manager, as wave does) runs the stdio
demo server behind the guard, in its stubborn mode (it ignores the end of its stdin, so only
the guard can end it); the server writes its pid and its guard's pid to a file. After
the parent ends — normal close, Ctrl-C, SIGTERM, SIGKILL, and SIGKILL with the loop on a worker
thread (no parent-death signal there, the guard's poll ends it) — both must be gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import default_sigint
from tests.mcp.conftest import DEMO, ROOT, pids_in
from tests.processes import alive

# Signals and timed exits of real process trees: CI runs these alone (`-m serial`).
pytestmark = pytest.mark.serial

PARENT = """
import asyncio, sys, threading
from pathlib import Path
from wave_tui.mcp.config import StdioServer
from wave_tui.mcp.manager import McpManager

mode, demo, pid_file = sys.argv[1:4]

async def main() -> None:
    server = StdioServer("demo", sys.executable, (demo,), {"DEMO_PID_FILE": pid_file, "DEMO_STUBBORN": "1"}, Path("t"), "user")
    manager = McpManager([server], workdir=Path.cwd(), notify=print)
    manager.start()
    await manager.wait_started()
    print("up" if manager.statuses()[0].state == "ready" else "not ready", flush=True)
    try:
        if mode != "close":
            await asyncio.sleep(600)
    finally:
        await manager.aclose()

if mode == "thread":
    worker = threading.Thread(target=asyncio.run, args=(main(),))
    worker.start(); worker.join()
else:
    asyncio.run(main())
"""


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.mark.req("MC8")
@pytest.mark.parametrize(
    ("mode", "sig"),
    [
        ("close", None),
        ("wait", signal.SIGINT),
        ("wait", signal.SIGTERM),
        ("wait", signal.SIGKILL),
        ("thread", signal.SIGKILL),
    ],
    ids=["close", "ctrl-c", "sigterm", "sigkill", "sigkill-worker-thread"],
)
def test_mc8_no_server_outlives_its_parent(
    mode: str, sig: signal.Signals | None, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, mode, str(DEMO), str(pid_file)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == "up"
        server, guard = pids_in(pid_file)
        assert alive(server) and alive(guard)
        if sig is not None:
            parent.send_signal(sig)
        parent.wait(30)
    finally:
        if parent.poll() is None:
            parent.kill()
    wait_for(lambda: not alive(server) and not alive(guard), 15, "the MCP server to exit")
    if mode == "close":
        assert parent.returncode == 0


@pytest.mark.req("MC8")
def test_mc8_the_guard_ends_the_servers_own_children(tmp_path: Path) -> None:
    """A server launched through a shell (npx-style) leaves no grandchild behind."""
    pid_file = tmp_path / "pids"
    script = PARENT.replace("(demo,)", '("-c", f"{sys.executable} {demo}; true")').replace(
        "sys.executable, (", '"/bin/sh", ('
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script, "wait", str(DEMO), str(pid_file)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == "up"
        server, shell = pids_in(pid_file)
        assert alive(server) and alive(shell)
        parent.kill()
        parent.wait(30)
    finally:
        if parent.poll() is None:
            parent.kill()
    wait_for(lambda: not alive(server) and not alive(shell), 15, "the MCP server to exit")
