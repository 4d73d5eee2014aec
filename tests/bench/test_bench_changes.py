"""N1–N6 cost: a detection pass over 1,000 unchanged tracked files is 1,000 stats (goal < 5 ms)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from wave_tui.files.read_state import ReadState
from wave_tui.memory.changes import detect_changes

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("N1", "N6")

TRACKED = 1_000


@pytest.fixture
def tracked(tmp_path: Path) -> ReadState:
    state = ReadState()
    for i in range(TRACKED):
        path = tmp_path / f"f{i:04}.py"
        path.write_text(f"value = {i}\n" * 20, encoding="utf-8")
        state.record_text(path, path.read_text(encoding="utf-8"), path.stat().st_mtime_ns)
    return state


@pytest.mark.req("N5")
@pytest.mark.bench
def test_n5_bench_detect_1000_unchanged_files(
    tracked: ReadState, benchmark: BenchmarkFixture
) -> None:
    report = benchmark(detect_changes, tracked)
    assert not report and len(tracked) == TRACKED


@pytest.mark.req("N2")
@pytest.mark.bench
def test_n2_bench_detect_1000_touched_files_settles(
    tracked: ReadState, benchmark: BenchmarkFixture
) -> None:
    later = 1_900_000_000_000_000_000
    for entry in tracked:
        os.utime(entry.path, ns=(later, later))
    # The first pass reads each touched file once; every later pass is stats only.
    assert not detect_changes(tracked)
    report = benchmark(detect_changes, tracked)
    assert not report and all(e.mtime_ns == later for e in tracked)
