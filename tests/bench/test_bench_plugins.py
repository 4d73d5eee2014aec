"""`wave -p` one turn with five installed, enabled plugins against none, paired in one run.

Each plugin has Claude Code's usual parts (a command, an agent, a skill); the two runs differ
only in their HOME. Printed, never asserted: run with `-s`; `WAVE_BENCH_ROUNDS=15` for a steadier
median.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench.test_bench_startup import ROUNDS, _env, _median_ratio, _timed
from tests.features.plugins.builders import make_market, make_plugin
from tests.model_server import ModelServer

PLUGINS = 5


def _home_with_plugins(home: Path, market: Path, project: Path, env: dict[str, str]) -> None:
    names = [f"plugin{n}" for n in range(PLUGINS)]
    for name in names:
        make_plugin(market / "plugins" / name, name)
    make_market(market, "bench", [{"name": n, "source": f"./plugins/{n}"} for n in names])
    env = {**env, "HOME": str(home)}
    wave = [sys.executable, "-m", "wave_tui", "plugin"]
    subprocess.run([*wave, "marketplace", "add", str(market)], cwd=project, env=env, check=True)
    for name in names:
        subprocess.run([*wave, "install", f"{name}@bench"], cwd=project, env=env, check=True)


@pytest.mark.bench
def test_bench_wave_print_with_five_plugins(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    env = _env(model_server)
    homes = {"no plugins": tmp_path / "home-none", "five plugins": tmp_path / "home-five"}
    for home in homes.values():
        home.mkdir()
    _home_with_plugins(homes["five plugins"], tmp_path / "market", project, env)
    command = [sys.executable, "-m", "wave_tui", "-p", "hi"]
    envs = {name: {**env, "HOME": str(home)} for name, home in homes.items()}
    for name in homes:  # warm-up: bytecode written, page cache filled
        _timed(command, project, envs[name])
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in homes}
    for _ in range(ROUNDS):
        for name in homes:
            timing = _timed(command, project, envs[name])
            runs[name].append((timing.cpu, timing.wall))
    lines = [f"\nwave -p one turn, {PLUGINS} plugins vs none (median of {ROUNDS} rounds):"]
    for name, timings in runs.items():
        cpu = statistics.median(t[0] for t in timings) * 1e3
        wall = statistics.median(t[1] for t in timings) * 1e3
        lines.append(f"  {name}: CPU {cpu:.0f} ms, wall {wall:.0f} ms")
    five, none = runs["five plugins"], runs["no plugins"]
    lines.append(
        f"  five / none: {_median_ratio([t[0] for t in five], [t[0] for t in none]):.2f}x CPU, "
        f"{_median_ratio([t[1] for t in five], [t[1] for t in none]):.2f}x wall"
    )
    print("\n".join(lines))
