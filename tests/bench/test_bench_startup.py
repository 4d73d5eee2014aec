"""`wave -p` one turn against its floor, paired in the same run.

The floor (`bench/floor_request.py`) is the interpreter + asyncio + httpx + one streamed request
printing the answer; the engine floor (`bench/floor_request_settings.py`) adds pydantic-settings,
the settings engine the design names, with one small settings class built and read. Runs
alternate floor, engine floor, wave, ... and each ratio is taken round by round (the machine's
speed drifts). CPU is the child's user + system time. Printed, never asserted: run with `-s` to
see the figures; `WAVE_BENCH_ROUNDS=15` for a steadier median, `WAVE_BENCH_INSTRUCTIONS=1` to
add each command's instruction count (valgrind; the figure a loaded machine does not move).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bench import instructions
from tests.bench.costs import rounds
from tests.model_server import ModelServer
from wave_tui.config.records import record

ROOT = Path(__file__).resolve().parents[2]
FLOOR = ROOT / "bench" / "floor_request.py"
ENGINE_FLOOR = ROOT / "bench" / "floor_request_settings.py"
ROUNDS = rounds(3)


def _env(server: ModelServer) -> dict[str, str]:
    env = server.env(PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode cached
    return env


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float  # user + system of the child
    answer: float  # wall time until the answer's line is on stdout


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> Timing:
    before = os.times()
    started = time.perf_counter()
    with subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        answer = time.perf_counter() - started
        rest, err = proc.communicate()
    elapsed = time.perf_counter() - started
    after = os.times()
    assert proc.returncode == 0, err
    assert (line + rest).strip() == "OK"
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return Timing(elapsed, cpu, answer)


def _median_ratio(a: list[float], b: list[float]) -> float:
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


@pytest.mark.bench
def test_bench_wave_print_vs_floor(project: Path) -> None:
    # No token accounting at the server: it ran in this process, ~15 ms for each 30 kB body of
    # wave's (main request and fork) and none for the floor's one-line body, all charged to
    # wave's wall while it waited for the reply.
    with ModelServer(accounting=False) as model_server:
        _print_vs_floor(model_server, project)


def _print_vs_floor(model_server: ModelServer, project: Path) -> None:
    env = _env(model_server)
    commands = {
        "floor": [sys.executable, str(FLOOR), model_server.base_url],
        "engine floor": [sys.executable, str(ENGINE_FLOOR), model_server.base_url],
        "wave": [sys.executable, "-m", "wave_tui", "-p", "hi"],
    }
    for cmd in commands.values():  # warm-up: bytecode written, page cache filled
        _timed(cmd, project, env)
    runs: dict[str, list[Timing]] = {name: [] for name in commands}
    for _ in range(ROUNDS):
        for name, cmd in commands.items():
            runs[name].append(_timed(cmd, project, env))
    wall = {name: [t.wall for t in timings] for name, timings in runs.items()}
    cpu = {name: [t.cpu for t in timings] for name, timings in runs.items()}
    answer = {name: [t.answer for t in timings] for name, timings in runs.items()}
    lines = [f"\nwave -p one turn (median of {ROUNDS} rounds):"]
    for name in commands:
        lines.append(
            f"  {name}: CPU {statistics.median(cpu[name]) * 1e3:.0f} ms, "
            f"wall {statistics.median(wall[name]) * 1e3:.0f} ms, "
            f"answer on stdout at {statistics.median(answer[name]) * 1e3:.0f} ms"
        )
    for base in ("floor", "engine floor"):
        lines.append(
            f"  wave / {base}: {_median_ratio(cpu['wave'], cpu[base]):.2f}x CPU, "
            f"{_median_ratio(wall['wave'], wall[base]):.2f}x wall, "
            f"{_median_ratio(answer['wave'], answer[base]):.2f}x to the answer"
        )
    lines.append(
        f"  engine floor / floor: {_median_ratio(cpu['engine floor'], cpu['floor']):.2f}x CPU"
    )
    if instructions.ENABLED:
        lines += instructions.instruction_lines(commands, project, env, against="floor")
    print("\n".join(lines))


_RECORD_BODY = """
@{decorator}
class Item:
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()
"""


def _define(decorator: str, count: int) -> float:
    """CPU seconds to define `count` classes of three fields under `decorator`."""
    namespace = {"dataclass": dataclass, "record": record, "__name__": __name__}
    code = compile(_RECORD_BODY.format(decorator=decorator), "<bench>", "exec")
    started = time.process_time()
    for _ in range(count):
        exec(code, dict(namespace))
    return time.process_time() - started


@pytest.mark.bench
def test_bench_defining_a_record_vs_a_frozen_dataclass() -> None:
    """What one class costs at import: `@record` against the `@dataclass(frozen=True)` it
    replaces (about 130 of them load before a `wave -p` answer)."""
    count = 300
    sides: dict[str, list[float]] = {
        "dataclass(frozen=True)": [],
        "record": [],
        "record(bulk=True)": [],
        "record(frozen=False)": [],
    }
    for _ in range(ROUNDS):
        for decorator, times in sides.items():
            times.append(_define(decorator, count))
    per_class = {name: statistics.median(t) / count for name, t in sides.items()}
    base = per_class["dataclass(frozen=True)"]
    print("\ndefining one class of three fields (CPU, median):")
    for name, seconds in per_class.items():
        print(f"  @{name}: {seconds * 1e6:.0f} µs ({seconds / base:.2f}x the frozen dataclass)")
