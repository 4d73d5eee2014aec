"""No language server outlives `wave -p`: neither when the run ends nor when wave is SIGKILLed
in the middle of a turn (the guard launcher ends the server's process group)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.features.lsp.conftest import pylsp_entry, write_settings
from tests.model_server import ModelServer, text, tool_call
from tests.processes import alive
from tests.wave_cli import WAVE

# Signals and timed exits of real process trees: CI runs these alone (`-m serial`).
pytestmark = [pytest.mark.serial, pytest.mark.req("LS3")]


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_for(check: object, seconds: float, what: str) -> None:
    assert callable(check)
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def start_wave(server: ModelServer, project: Path) -> subprocess.Popen[str]:
    env = server.env()
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[3])
    env["WAVE_DISABLE_AUTO_MEMORY"] = "1"
    return subprocess.Popen(
        [*WAVE, "-p", "look"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def server_tree(wave: int) -> list[int]:
    """The guard and pylsp under it, once pylsp runs."""
    tree = descendants(wave)
    return tree if any("pylsp" in cmdline(p) for p in tree) else []


@pytest.mark.parametrize("ending", ["ends", "sigkill"])
def test_no_language_server_outlives_wave_p(
    model_server: ModelServer, code: Path, ending: str
) -> None:
    write_settings(code, pylsp=pylsp_entry())
    held = threading.Event()
    model_server.enqueue(
        tool_call("LSP", {"operation": "documentSymbol", "filePath": "helpers.py"}),
        text("found it", hold=held),
    )
    wave = start_wave(model_server, code)
    try:
        tree: list[int] = []

        def up() -> bool:
            tree[:] = server_tree(wave.pid)
            return bool(tree) and len(model_server.requests) >= 2

        wait_for(up, 60, "pylsp to start under wave")
        assert all(alive(p) for p in tree)
        if ending == "sigkill":
            os.kill(wave.pid, signal.SIGKILL)
            wave.wait(30)
        else:
            held.set()
            out, err = wave.communicate(timeout=60)
            assert wave.returncode == 0, err
            assert out == "found it\n"
    finally:
        held.set()
        if wave.poll() is None:
            wave.kill()
            wave.wait()
    wait_for(lambda: not any(alive(p) for p in tree), 15, "the language server to exit")
