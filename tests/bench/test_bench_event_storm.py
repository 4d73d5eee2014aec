"""Request building under a storm of file events (HR13).

Scene: a project with 200 rules and an AGENTS.md; a turn of 40 requests, each after a Write of a
new file in the project root (the turn's tool call), as `wave -p` builds them: the reminder from
the memory watch and the change notices from the read files' watch. Printed: the worst and the
median request build of that turn, calm and while other processes churn the project root as fast
as they can (`tests/file_storm.py`), over `WAVE_BENCH_ROUNDS` rounds (default 3). A drain reads
at most one bounded piece of the queue, so the storm's cost is one full look per request.
Run: `pytest tests/bench/test_bench_event_storm.py -m bench -s`; `WAVE_BENCH_STORM_CHURNERS=0`
storms with the swapper alone (one process renaming as fast as it can, which leaves the build a
core of its own on a 2-core machine), the default adds three churners.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from tests.bench.costs import rounds
from tests.file_storm import storms
from wave_tui.config.paths import WavePaths
from wave_tui.files.read_state import ReadState
from wave_tui.memory.changes import ChangeDetector
from wave_tui.memory.injection import MemoryInjector

REQUESTS = 40
CHURNERS = int(os.environ.get("WAVE_BENCH_STORM_CHURNERS", "3"))


def _scene(project: Path) -> None:
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    for i in range(200):
        (rules / f"r{i:03d}.md").write_text(f"Always rule {i}.\n")
    (project / "AGENTS.md").write_text("Project notes.\n")


def _turn(project: Path, tag: str) -> tuple[list[float], list[float]]:
    """Build times (s, wall and this thread's CPU) of one turn's requests, each after a Write in
    the project root."""
    injector, detector, state = (
        MemoryInjector(WavePaths.for_workdir(project)),
        ChangeDetector(),
        ReadState(),
    )
    injector.reminder_text()
    detector.detect(state)
    times: list[float] = []
    cpu: list[float] = []
    for i in range(REQUESTS):
        written = project / f"{tag}-{i}.txt"
        written.write_text(f"{i}\n")
        state.record_text(written, f"{i}\n", written.stat().st_mtime_ns)
        started, started_cpu = time.perf_counter(), time.thread_time()
        text = injector.reminder_text()
        detector.detect(state)
        times.append(time.perf_counter() - started)
        cpu.append(time.thread_time() - started_cpu)
        assert text is not None and "Always rule 199." in text
    injector.close()
    detector.close()
    return times, cpu


def test_bench_request_build_under_an_event_storm(project: Path) -> None:
    _scene(project)
    calm: tuple[list[float], list[float]] = ([], [])
    stormy: tuple[list[float], list[float]] = ([], [])
    for r in range(rounds(3)):
        for into, got in zip(calm, _turn(project, f"calm{r}"), strict=True):
            into += got
        with storms(project, CHURNERS):
            for into, got in zip(stormy, _turn(project, f"storm{r}"), strict=True):
                into += got
    for label, (wall, cpu) in (("calm", calm), ("storm", stormy)):
        print(
            f"request build, {label:5}: worst {max(wall) * 1e3:7.2f} ms"
            f"  median {statistics.median(wall) * 1e3:7.2f} ms wall;"
            f" CPU worst {max(cpu) * 1e3:7.2f} ms  median {statistics.median(cpu) * 1e3:7.2f} ms"
            f"  ({len(wall)} requests)"
        )
    # The storm's processes share the cores with the build: wall time says how much of them the
    # machine gave it, CPU time what the build itself did.
    print(
        f"storm ({CHURNERS} churners beside the swapper)/calm, worst: wall {max(stormy[0]) / max(calm[0]):.2f}x,"
        f" CPU {max(stormy[1]) / max(calm[1]):.2f}x"
    )
