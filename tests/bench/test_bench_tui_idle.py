"""`wave` in a real terminal (tmux, 120×40) against a bare Textual app (an Input and a Footer):
start → the input prompt visible, and the CPU the process burns while idle (issue 36, item 4).

Each round starts both, alternating, in a fresh HOME and project; the prompt is seen by polling
the pane. Idle CPU is the process's own user + system time (every thread) over a window that
starts once the app has settled (wave's session is open by then), scaled to 10 s. Nothing is
asserted on time. `WAVE_BENCH_IDLE_S=10` measures a full 10 s window (default 2 s, for CI);
`WAVE_BENCH_ROUNDS` sets the rounds (default 3).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import NamedTuple

from tests.bench.costs import rounds

REPO_ROOT = Path(__file__).resolve().parents[2]
BARE_APP = REPO_ROOT / "bench" / "bare_app.py"
SIZE = (120, 40)
IDLE_S = float(os.environ.get("WAVE_BENCH_IDLE_S", "2"))
ROUNDS = rounds(3)
SETTLE_S = 1.5  # after the prompt shows: wave's session opens, its after-frame work runs
PROMPTS = {"wave": "Message wave", "bare": "Message"}

# The real terminal is what is measured: without tmux this fails (CI installs it).
assert shutil.which("tmux") is not None, "tmux is needed: apt-get install tmux"


class Figures(NamedTuple):
    ready: float  # start → the prompt on the pane, seconds
    idle_cpu: float  # CPU seconds per 10 s idle


def cpu_seconds(pid: int) -> float:
    """The CPU time of every thread of `pid` now, in nanoseconds' precision (the scheduler's
    own count: /proc/PID/task/*/schedstat; /proc/PID/stat counts in 10 ms ticks)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # a thread ended
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def command(kind: str, project: Path) -> str:
    if kind == "wave":
        return f"{shlex.quote(sys.executable)} -m wave_tui --workdir {shlex.quote(str(project))}"
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(BARE_APP))}"


def measure(kind: str, root: Path) -> Figures:
    home, project = root / "home", root / "project"
    shutil.rmtree(root, ignore_errors=True)
    home.mkdir(parents=True)
    project.mkdir()
    env = {
        "HOME": str(home),
        "PYTHONPATH": str(REPO_ROOT),
        # Configured, never asked: nothing is requested while idle.
        "WAVE_BASE_URL": "http://127.0.0.1:9/v1",
        "WAVE_MODEL": "m",
        "WAVE_LOCAL": "0",
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
    }
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    socket = f"wave-bench-{uuid.uuid4().hex[:8]}"

    def tmux(*args: str) -> str:
        done = subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True)
        return done.stdout

    width, height = SIZE
    start = time.perf_counter()
    tmux("new-session", "-d", "-s", "b", "-x", str(width), "-y", str(height),
         f"exec env -i {assignments} {command(kind, project)}")  # fmt: skip
    try:
        deadline = start + 60
        while PROMPTS[kind] not in tmux("capture-pane", "-p", "-t", "b"):
            assert time.perf_counter() < deadline, f"{kind}: no prompt after 60 s"
            time.sleep(0.01)
        ready = time.perf_counter() - start
        pid = int(tmux("display-message", "-p", "-t", "b", "#{pane_pid}").strip())
        time.sleep(SETTLE_S)
        before = cpu_seconds(pid)
        time.sleep(IDLE_S)
        idle = cpu_seconds(pid) - before
        assert PROMPTS[kind] in tmux("capture-pane", "-p", "-t", "b")  # still up, still idle
        return Figures(ready, idle * 10 / IDLE_S)
    finally:
        tmux("kill-server")


def median(figures: list[Figures]) -> Figures:
    return Figures(
        statistics.median(f.ready for f in figures), statistics.median(f.idle_cpu for f in figures)
    )


def test_report_tui_ready_and_idle_cpu(tmp_path: Path) -> None:
    """Prints start → prompt and idle CPU per 10 s, wave and the bare app, and the ratios."""
    for kind in PROMPTS:
        measure(kind, tmp_path / "warm")  # bytecode written, page cache warm
    samples: dict[str, list[Figures]] = {kind: [] for kind in PROMPTS}
    for _ in range(ROUNDS):
        for kind in PROMPTS:
            samples[kind].append(measure(kind, tmp_path / kind))
    wave, bare = median(samples["wave"]), median(samples["bare"])
    print()
    print(f"tmux {SIZE[0]}x{SIZE[1]}, {ROUNDS} rounds, idle window {IDLE_S:g} s (medians)")
    print(
        f"start → prompt visible: wave {wave.ready * 1000:7.1f} ms  bare {bare.ready * 1000:7.1f} ms"
        f"  ratio {wave.ready / bare.ready:5.2f}"
    )
    print(
        f"idle CPU per 10 s:      wave {wave.idle_cpu * 1000:7.1f} ms  bare {bare.idle_cpu * 1000:7.1f} ms"
        f"  ratio {wave.idle_cpu / bare.idle_cpu if bare.idle_cpu else float('inf'):5.2f}"
    )
