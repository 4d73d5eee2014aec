"""X1 / A2: a 200 KB one-line MEMORY.md (seen in the wild) and a 200,000-line one load quickly.
Figures: `pytest tests/bench/test_bench_index.py -m bench --benchmark-enable` (no timed asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from wave_tui.config.paths import WavePaths
from wave_tui.memory.index import INDEX_MAX_LINES, load_index

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("A2")


def _index(project: Path, text: str) -> Path:
    path = WavePaths.for_workdir(project).memory_index
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.req("X1")
@pytest.mark.bench
def test_x1_bench_load_200kb_one_line_index(project: Path, benchmark: BenchmarkFixture) -> None:
    """The line is over the cap, so it is left out whole (never cut mid-line) — and fast."""
    path = _index(project, "- " + "x" * 200_000 + "\n")
    view = benchmark(load_index, path)
    assert view.text == "" and view.first_line_cut and view.dropped_entries == 1


@pytest.mark.req("X1")
@pytest.mark.bench
def test_x1_bench_load_200000_line_index(project: Path, benchmark: BenchmarkFixture) -> None:
    lines = "".join(f"- [E{i}](e{i}.md) — hook\n" for i in range(200_000))
    view = benchmark(load_index, _index(project, lines))
    assert view.total_lines == 200_000 and view.kept_lines == INDEX_MAX_LINES
