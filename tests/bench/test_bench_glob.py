"""Glob against `rg --files` on the same tree, at 1k, 10k and 100k files that all match: the
tool's own cost over the floor is the newest-first order (a stat per path, a bounded heap for
the shown ones). Figures: `pytest tests/bench/test_bench_glob.py -m bench -s -n 0`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest

from wave_tui.files.read_state import ReadState
from wave_tui.tools.base import ToolContext
from wave_tui.tools.glob_tool import GlobTool, find_ripgrep

pytestmark = pytest.mark.bench

SIZES = (1_000, 10_000, 100_000)


def _tree(root: Path, count: int) -> None:
    for folder in range(count // 100):
        directory = root / f"d{folder:04d}"
        directory.mkdir(parents=True)
        for n in range(100):
            os.close(os.open(directory / f"f{n:03d}.py", os.O_CREAT | os.O_WRONLY, 0o644))


def _best(run: object, rounds: int = 3) -> float:
    assert callable(run)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.parametrize("count", SIZES)
def test_bench_glob_every_file_matching_against_rg(tmp_path: Path, count: int) -> None:
    _tree(tmp_path, count)
    rg = find_ripgrep()
    assert rg is not None
    tool = GlobTool()
    ctx = ToolContext(workdir=tmp_path, read_state=ReadState(), abort=asyncio.Event())

    def floor() -> None:
        subprocess.run([rg, "--files", "--hidden"], cwd=tmp_path, capture_output=True, check=True)

    def glob() -> None:
        result = asyncio.run(tool.run({"pattern": "**/*.py"}, ctx))
        assert f"of {count} files" in result.content

    floor_s, glob_s = _best(floor), _best(glob)
    print(
        f"\nGlob {count:>7} files: {glob_s * 1000:8.1f} ms, rg --files {floor_s * 1000:7.1f} ms,"
        f" {glob_s / floor_s:4.1f}x"
    )
