"""Grep's ripgrep backend reads only the shown part of rg's own output (SP6), and still says
exactly what the Python backend says: totals, head_limit, separators, the 30k-character cut."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from wave_tui.tools.base import ToolContext
from wave_tui.tools.grep import GrepTool


@pytest.fixture
def many(ctx: ToolContext) -> Path:
    root = ctx.workdir
    for n in range(60):
        path = root / f"d{n % 7}" / f"f{n:02d}.py"
        path.parent.mkdir(exist_ok=True)
        body = "".join(
            f"line {i} {'needle' if (i * n) % 5 == 0 else 'hay'} {'x' * (n * 7)}\n"
            for i in range(40)
        )
        path.write_text(body + "tail\r\nnon-utf8 \xff needle\n", encoding="latin-1")
        os.utime(path, (1_000 + n * 10, 1_000 + n * 10))
    return root


CASES: list[dict[str, Any]] = [
    {"output_mode": "content"},
    {"output_mode": "content", "-C": 1},
    {"output_mode": "content", "-A": 2, "head_limit": 37},
    {"output_mode": "content", "-B": 3, "head_limit": 5000},
    {"output_mode": "content", "-C": 1, "-n": False, "head_limit": 11},
    {"output_mode": "content", "head_limit": 3},
    {"output_mode": "count"},
    {"output_mode": "count", "head_limit": 7},
    {"output_mode": "files_with_matches"},
    {"output_mode": "files_with_matches", "head_limit": 4},
    {"output_mode": "content", "multiline": True, "pattern": "needle[^\\n]*\\nline"},
    {"output_mode": "content", "glob": "d3/**"},
]


@pytest.mark.req("SP6")
@pytest.mark.parametrize("args", CASES, ids=range(len(CASES)))
async def test_sp6_rg_backend_says_what_the_python_backend_says(
    ctx: ToolContext, many: Path, args: dict[str, Any]
) -> None:
    args = {"pattern": "needle", **args}
    with_rg = await GrepTool(use_ripgrep=True).run(args, ctx)
    fallback = await GrepTool(use_ripgrep=False).run(args, ctx)
    assert not with_rg.is_error, with_rg.content
    assert with_rg.content == fallback.content
    assert with_rg.summary == fallback.summary
    assert with_rg.context_paths == fallback.context_paths


@pytest.mark.req("SP6")
@pytest.mark.parametrize("mode", ["content", "count", "files_with_matches"])
async def test_sp6_a_glob_that_leaves_no_file_is_no_match_not_a_failure(
    ctx: ToolContext, many: Path, mode: str
) -> None:
    args = {"pattern": "needle", "glob": "*.nothing", "output_mode": mode}
    result = await GrepTool(use_ripgrep=True).run(args, ctx)
    assert (result.is_error, result.content) == (False, "No matches found")
