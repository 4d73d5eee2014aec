"""X1 / A2: a 200 KB one-line MEMORY.md (seen in the wild) loads quickly."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from wave_tui.config.paths import WavePaths
from wave_tui.memory.index import INDEX_MAX_CHARS, load_index


@pytest.fixture
def huge_index(project: Path) -> Path:
    path = WavePaths.for_workdir(project).memory_index
    path.parent.mkdir(parents=True)
    path.write_text("- " + "x" * 200_000 + "\n", encoding="utf-8")
    return path


@pytest.mark.bench
def test_x1_bench_load_200kb_one_line_index(huge_index: Path, benchmark: BenchmarkFixture) -> None:
    view = benchmark(load_index, huge_index)
    assert len(view.text) == INDEX_MAX_CHARS and view.first_line_cut


def test_x1_200kb_one_line_index_is_fast(huge_index: Path) -> None:
    start = time.perf_counter()
    for _ in range(20):
        load_index(huge_index)
    assert (time.perf_counter() - start) / 20 < 0.05


def test_x1_large_many_line_index_is_fast(project: Path) -> None:
    path = WavePaths.for_workdir(project).memory_index
    path.parent.mkdir(parents=True)
    path.write_text("".join(f"- [E{i}](e{i}.md) — hook\n" for i in range(200_000)), "utf-8")
    start = time.perf_counter()
    view = load_index(path)
    assert time.perf_counter() - start < 0.5
    assert view.total_lines == 200_000 and view.kept_lines == 200
