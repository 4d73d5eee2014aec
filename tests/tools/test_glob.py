from __future__ import annotations

import os
from pathlib import Path

import pytest

from wave_tui.tools.base import ToolContext, ToolError
from wave_tui.tools.glob_tool import GlobTool, expand_braces

BACKENDS = [
    pytest.param(True, id="ripgrep"),
    pytest.param(False, id="python"),
]


def touch(path: Path, mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x", encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def tree(ctx: ToolContext) -> Path:
    root = ctx.workdir
    touch(root / "old.py", 1_000)
    touch(root / "pkg/new.py", 3_000)
    touch(root / "pkg/mid.py", 2_000)
    touch(root / "pkg/notes.md", 4_000)
    touch(root / ".github/ci.py", 500)
    touch(root / "build/gen.py", 5_000)
    touch(root / ".git/hook.py", 6_000)
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_matches_newest_first_as_absolute_paths(
    ctx: ToolContext, tree: Path, use_rg: bool
) -> None:
    result = await GlobTool(use_ripgrep=use_rg).run({"pattern": "**/*.py"}, ctx)
    assert result.content.splitlines() == [
        str(tree / "pkg/new.py"),
        str(tree / "pkg/mid.py"),
        str(tree / "old.py"),
        str(tree / ".github/ci.py"),
    ]
    assert result.context_paths == []


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_pattern_without_slash_matches_at_any_depth(
    ctx: ToolContext, tree: Path, use_rg: bool
) -> None:
    result = await GlobTool(use_ripgrep=use_rg).run({"pattern": "*.md"}, ctx)
    assert result.content == str(tree / "pkg/notes.md")


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_path_narrows_the_search(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    result = await GlobTool(use_ripgrep=use_rg).run({"pattern": "*.py", "path": "pkg"}, ctx)
    assert result.content.splitlines() == [str(tree / "pkg/new.py"), str(tree / "pkg/mid.py")]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_limit_truncates_with_a_note(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    result = await GlobTool(use_ripgrep=use_rg).run({"pattern": "**/*.py", "limit": 2}, ctx)
    lines = result.content.splitlines()
    assert lines[:2] == [str(tree / "pkg/new.py"), str(tree / "pkg/mid.py")]
    assert "Showing the 2 most recently modified of 4 files" in result.content


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_no_match_says_so(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    result = await GlobTool(use_ripgrep=use_rg).run({"pattern": "*.rs"}, ctx)
    assert not result.is_error and result.content == "No files found"


async def test_absolute_patterns_are_split_into_root_and_pattern(
    ctx: ToolContext, tree: Path
) -> None:
    result = await GlobTool(use_ripgrep=False).run({"pattern": f"{tree}/pkg/*.py"}, ctx)
    assert result.content.splitlines() == [str(tree / "pkg/new.py"), str(tree / "pkg/mid.py")]


async def test_bad_input_is_an_error(ctx: ToolContext) -> None:
    tool = GlobTool()
    assert (await tool.run({}, ctx)).is_error
    assert (await tool.run({"pattern": "*", "path": "missing"}, ctx)).is_error
    assert (await tool.run({"pattern": "*", "limit": 0}, ctx)).is_error


@pytest.mark.parametrize("use_rg", BACKENDS)
@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("**/*.{py,md}", ["pkg/notes.md", "pkg/new.py", "pkg/mid.py", "old.py", ".github/ci.py"]),
        ("pkg/*.{md,py}", ["pkg/notes.md", "pkg/new.py", "pkg/mid.py"]),
        ("{pkg,.github}/{new,ci}.py", ["pkg/new.py", ".github/ci.py"]),
        ("pkg/{n{ew,otes},x}.*", ["pkg/notes.md", "pkg/new.py"]),
        ("*.{rs,go}", []),
    ],
)
async def test_braces_alternate(
    ctx: ToolContext, tree: Path, use_rg: bool, pattern: str, expected: list[str]
) -> None:
    # Bug: the pure-Python fallback ignored braces, so "**/*.{ts,py}" found nothing.
    result = await GlobTool(use_ripgrep=use_rg).run({"pattern": pattern}, ctx)
    found = [] if result.content == "No files found" else result.content.splitlines()
    assert found == [str(tree / p) for p in expected]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.{ts,py}", ["*.ts", "*.py"]),
        ("{a,b{c,d}}/x", ["a/x", "bc/x", "bd/x"]),
        ("{a,b}{c,d}", ["ac", "ad", "bc", "bd"]),
        ("{,x}y", ["y", "xy"]),
        ("a{b}c", ["abc"]),
        ("[{,]}x", ["[{,]}x"]),  # braces in a character class are literal
        ("{[,}],x}", ["[,}]", "x"]),
        ("\\{a,b}", ["\\{a,b}"]),  # escaped
        ("{a,b", ["{a,b"]),  # unclosed
        ("a}b", ["a}b"]),
        ("{a,{b}", ["{a,b"]),
        ("{!a,b}", ["\\!a", "b"]),  # not a negation
        ("!*.{a,b}", ["!*.a", "!*.b"]),
    ],
)
def test_expand_braces(pattern: str, expected: list[str]) -> None:
    assert expand_braces(pattern) == expected


def test_brace_bombs_are_refused() -> None:
    with pytest.raises(ToolError):
        expand_braces("{a,b}" * 20)
    with pytest.raises(ToolError):
        expand_braces("{" * 100 + "}" * 100)
    assert expand_braces("{" * 5000) == ["{" * 5000]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_file_names_with_odd_line_breaks_stay_whole(ctx: ToolContext, use_rg: bool) -> None:
    # rg's output was split with str.splitlines, which also breaks at \x0c, \x85, U+2028 ...
    path = touch(ctx.workdir / "a\x0cb\u2028c.py", 1_000)
    result = await GlobTool(use_ripgrep=use_rg).run({"pattern": "*.py"}, ctx)
    assert result.content == str(path)
