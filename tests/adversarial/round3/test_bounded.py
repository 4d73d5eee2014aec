"""Bounded memory and processes: hook stdout, `@path` of a huge file and BashOutput of a huge
log are read bounded; a hook that leaves a child does not hold the turn; background commands end
when wave is SIGKILLed, also those that left their process group."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.hook_helpers import configure, project_settings, script
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import WAVE, run_wave

ROOT = Path(__file__).resolve().parents[3]
# What `wave -p` itself needs (interpreter, imports, one turn) stays well below this; reading
# any of the 400 MB inputs below whole would not.
PEAK_MIB = 250.0


def peak_of_wave(server: ModelServer, project: Path, *args: str) -> float:
    env = {**server.env(), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.adversarial.round3.rss_probe", "--", *WAVE, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith("RSS_MIB"), done.stdout + done.stderr
    return float(line.split()[1])


def test_a_hook_printing_400_mb_is_read_bounded(model_server: ModelServer, project: Path) -> None:
    hook = script(project, "flood.sh", "head -c 400000000 /dev/zero | tr '\\0' x\n")
    configure(project_settings(project), "UserPromptSubmit", str(hook))
    model_server.enqueue(text("ok"))
    peak = peak_of_wave(model_server, project, "-p", "hi")
    assert peak < PEAK_MIB, peak
    sent = json.dumps(model_server.requests[0].body)
    assert "xxxx" in sent and len(sent) < 2_000_000


def test_attaching_a_huge_file_reads_only_what_is_shown(
    model_server: ModelServer, project: Path
) -> None:
    with (project / "big.log").open("wb") as fh:
        fh.truncate(400_000_000)
    model_server.enqueue(text("ok"))
    peak = peak_of_wave(model_server, project, "-p", "look at @big.log")
    assert peak < PEAK_MIB, peak
    assert len(json.dumps(model_server.requests[0].body)) < 2_000_000


def test_bash_output_of_a_huge_log_is_read_bounded(tmp_path: Path) -> None:
    code = f"""
from pathlib import Path
from wave_tui.files.read_state import ReadState
from wave_tui.tools.background import BackgroundManager, BashOutputTool
from wave_tui.tools.base import ToolContext
import os
async def go():
    manager = BackgroundManager(Path({str(tmp_path)!r}))
    task = await manager.start("truncate -s 400000000 /proc/self/fd/1", Path({str(tmp_path)!r}), dict(os.environ), "big")
    await manager.wait(task.id)
    ctx = ToolContext(workdir=Path({str(tmp_path)!r}), read_state=ReadState())
    result = await BashOutputTool(manager).run({{"task_id": task.id}}, ctx)
    assert len(result.content) < 100_000, len(result.content)
    await manager.aclose()
asyncio.run(go())
"""
    done = subprocess.run(
        [sys.executable, "-m", "tests.adversarial.round3.rss_probe", "--python", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    growth = float(done.stdout.split()[1])
    assert growth < 100.0, growth


@pytest.mark.parametrize("how", ["background", "setsid", "nohup"])
def test_a_hook_that_leaves_a_child_does_not_hold_the_turn(
    model_server: ModelServer, project: Path, how: str
) -> None:
    pids = project / "child.pid"
    start = {"background": "sleep 300", "setsid": "setsid sleep 300", "nohup": "nohup sleep 300"}
    body = f"{start[how]} 2>&1 &\necho $! > {pids}\necho context-from-hook\n"
    hook = script(project, "leave.sh", body)
    configure(project_settings(project), "UserPromptSubmit", str(hook), timeout=600)
    model_server.enqueue(text("ok"))
    # A held turn would wait for the hook's 600 s timeout: the run's own limit fails it first.
    result = run_wave("-p", "hi", cwd=project, server=model_server, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "context-from-hook" in json.dumps(model_server.requests[0].body)
    for pid in (int(p) for p in pids.read_text().split()):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def sleepers(arg: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmdline[:2] == [b"sleep", arg.encode()]:
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("how", ["plain", "setsid", "double-fork", "nohup-setsid"])
def test_background_commands_end_when_wave_is_sigkilled(
    model_server: ModelServer, project: Path, how: str
) -> None:
    arg = f"{500 + ['plain', 'setsid', 'double-fork', 'nohup-setsid'].index(how)}.{os.getpid()}"
    start = {
        "plain": f"sleep {arg}",
        "setsid": f"setsid sleep {arg}",
        "double-fork": f"( ( sleep {arg} & ) & ); sleep {arg}",
        "nohup-setsid": f"nohup setsid sleep {arg} >/dev/null 2>&1 &",
    }[how]
    model_server.enqueue(
        tool_call("Bash", {"command": start, "run_in_background": True}),
        tool_call("Bash", {"command": "touch started; sleep 120"}),
        text("done"),
    )
    env = {**model_server.env(), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [*WAVE, "-p", "go", "--allowedTools", "Bash"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            if (project / "started").exists() and sleepers(arg):
                break
            time.sleep(0.05)
        assert sleepers(arg)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    for _ in range(200):
        if not sleepers(arg):
            break
        time.sleep(0.05)
    left = sleepers(arg)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
