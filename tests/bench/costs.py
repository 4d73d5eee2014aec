"""Wall and CPU time of a measure, and medians over alternating rounds, for the TUI benchmarks."""

from __future__ import annotations

import os
import resource
import statistics
import time
from collections.abc import Callable
from typing import NamedTuple


class Cost(NamedTuple):
    wall: float
    cpu: float  # every thread of the process (and its children): steadier than wall when loaded


def clock() -> Cost:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Cost(time.perf_counter(), time.process_time() + children.ru_utime + children.ru_stime)


def since(start: Cost) -> Cost:
    now = clock()
    return Cost(now.wall - start.wall, now.cpu - start.cpu)


def alternate(measures: dict[str, Callable[[], Cost]], rounds: int) -> dict[str, Cost]:
    """The median of each measure over `rounds`, one of each per round, so that the machine's
    drift hits every side alike."""
    samples: dict[str, list[Cost]] = {name: [] for name in measures}
    for _ in range(rounds):
        for name, measure in measures.items():
            samples[name].append(measure())
    return {
        name: Cost(statistics.median(c.wall for c in got), statistics.median(c.cpu for c in got))
        for name, got in samples.items()
    }


def show(label: str, cost: Cost, floor: Cost | None = None) -> None:
    line = f"{label:46} wall {cost.wall * 1000:7.1f} ms  cpu {cost.cpu * 1000:7.1f} ms"
    if floor is not None:
        line += f"  ratio wall {cost.wall / floor.wall:5.2f}  cpu {cost.cpu / floor.cpu:5.2f}"
    print(line)


def rounds(default: int) -> int:
    """How many rounds a bench runs: `WAVE_BENCH_ROUNDS` when set (CI's one pass sets 1: the
    benches must run, their figures are read from a run with rounds), else `default`."""
    return int(os.environ.get("WAVE_BENCH_ROUNDS", str(default)))
