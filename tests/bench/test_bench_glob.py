"""Glob and Grep against `rg` run directly on the same tree, at 1k, 10k and 100k files that all
match (CI: 1k; `WAVE_BENCH_GROWTH=full` all three). The tools' own cost over the floor is the
newest-first order (a stat per path, a bounded heap for the shown ones) and the output.
Figures: `WAVE_BENCH_GROWTH=full pytest tests/bench/test_bench_glob.py -m bench -s -n 0`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.bench.growth import FILES, keep
from wave_tui.files.read_state import ReadState
from wave_tui.tools.base import ToolContext
from wave_tui.tools.glob_tool import GlobTool, find_ripgrep
from wave_tui.tools.grep import GrepTool

pytestmark = pytest.mark.bench


def _tree(root: Path, count: int, text: bytes = b"") -> None:
    for folder in range(count // 100):
        directory = root / f"d{folder:04d}"
        directory.mkdir(parents=True)
        for n in range(100):
            fd = os.open(directory / f"f{n:03d}.py", os.O_CREAT | os.O_WRONLY, 0o644)
            os.write(fd, text)
            os.close(fd)


def _best(run: object, rounds: int = 3) -> float:
    assert callable(run)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.parametrize("count", FILES)
def test_bench_glob_every_file_matching_against_rg(tmp_path: Path, count: int) -> None:
    _tree(tmp_path, count)
    rg = find_ripgrep()
    assert rg is not None
    tool = GlobTool()
    ctx = ToolContext(workdir=tmp_path, read_state=ReadState(), abort=asyncio.Event())

    def floor() -> None:
        subprocess.run([rg, "--files", "--hidden"], cwd=tmp_path, capture_output=True, check=True)

    def sorted_floor() -> None:
        # Glob lists newest first, as `rg --sortr modified` does (one stat per path, one sort).
        argv = [rg, "--files", "--hidden", "--sortr", "modified"]
        subprocess.run(argv, cwd=tmp_path, capture_output=True, check=True)

    def glob() -> None:
        result = asyncio.run(tool.run({"pattern": "**/*.py"}, ctx))
        assert f"of {count} files" in result.content

    floor_s, sorted_s, glob_s = _best(floor), _best(sorted_floor), _best(glob)
    print(
        f"\nGlob {count:>7} files: {glob_s * 1000:8.1f} ms, rg --files {floor_s * 1000:7.1f} ms,"
        f" {glob_s / floor_s:4.1f}x; rg --files --sortr modified {sorted_s * 1000:7.1f} ms,"
        f" {glob_s / sorted_s:4.1f}x"
    )
    keep("glob", count, wave=glob_s, floor=floor_s, sorted_floor=sorted_s)


# A few lines of code in every file, one of them matching.
SOURCE = b"import os\n\n\ndef handler(request):\n    return os.getcwd()\n" * 4


@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
@pytest.mark.parametrize("count", FILES)
def test_bench_grep_every_file_matching_against_rg(tmp_path: Path, count: int, mode: str) -> None:
    _tree(tmp_path, count, SOURCE)
    rg = find_ripgrep()
    assert rg is not None
    tool = GrepTool()
    ctx = ToolContext(workdir=tmp_path, read_state=ReadState(), abort=asyncio.Event())
    flag = {"files_with_matches": "--files-with-matches", "count": "--count"}.get(mode, "-n")

    def floor() -> None:
        found = subprocess.run(
            [rg, "--hidden", flag, "def handler"], cwd=tmp_path, capture_output=True, check=True
        )
        assert found.stdout.count(b"\n") == count * (4 if mode == "content" else 1)

    def grep() -> None:
        result = asyncio.run(tool.run({"pattern": "def handler", "output_mode": mode}, ctx))
        assert not result.is_error
        if mode == "files_with_matches":
            assert result.summary == f"Found {count} files"
        else:
            assert result.summary.startswith(f"Found {count * 4} match")

    floor_s, grep_s = _best(floor), _best(grep)
    print(
        f"\nGrep {mode:18} {count:>7} files: {grep_s * 1000:8.1f} ms,"
        f" rg {floor_s * 1000:7.1f} ms, {grep_s / floor_s:4.1f}x"
    )
    keep(f"grep_{mode}", count, wave=grep_s, floor=floor_s)
