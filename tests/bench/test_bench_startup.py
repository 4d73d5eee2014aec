"""`wave -p` one turn against its floor, paired in the same run (issue 20, item 1).

The floor (`bench/floor_request.py`) is the interpreter + asyncio + httpx + one streamed request
printing the answer. Runs alternate floor, wave, floor, wave ... and the ratio is taken pair by
pair (the machine's speed drifts). Printed, never asserted: run with `-s` to see the figures;
`WAVE_BENCH_ROUNDS=15` for a steadier median.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.model_server import ModelServer

ROOT = Path(__file__).resolve().parents[2]
FLOOR = ROOT / "bench" / "floor_request.py"
ROUNDS = int(os.environ.get("WAVE_BENCH_ROUNDS", "3"))


def _env(server: ModelServer) -> dict[str, str]:
    env = server.env(PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode cached
    return env


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "OK"
    return elapsed


@pytest.mark.bench
def test_bench_wave_print_vs_floor(model_server: ModelServer, project: Path) -> None:
    env = _env(model_server)
    floor_cmd = [sys.executable, str(FLOOR), model_server.base_url]
    wave_cmd = [sys.executable, "-m", "wave_tui", "-p", "hi"]
    _timed(wave_cmd, project, env)  # warm-up: bytecode written, page cache filled
    _timed(floor_cmd, project, env)
    floors, waves = [], []
    for _ in range(ROUNDS):
        floors.append(_timed(floor_cmd, project, env))
        waves.append(_timed(wave_cmd, project, env))
    ratios = [w / f for w, f in zip(waves, floors, strict=True)]
    print(
        f"\nwave -p one turn: {statistics.median(waves) * 1e3:.0f} ms wall; "
        f"floor {statistics.median(floors) * 1e3:.0f} ms; "
        f"ratio {statistics.median(ratios):.2f}x (median of {ROUNDS} pairs)"
    )
