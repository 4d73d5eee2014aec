from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from wave_tui.tools.base import ToolContext
from wave_tui.tools.glob_tool import find_ripgrep
from wave_tui.tools.grep import GrepTool

BACKENDS = [pytest.param(True, id="ripgrep"), pytest.param(False, id="python")]


def put(path: Path, text: str, mtime: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))


@pytest.fixture
def tree(ctx: ToolContext) -> Path:
    root = ctx.workdir
    put(root / "a.py", "import os\n\ndef handler():\n    return os.getcwd()\n", 1_000)
    put(root / "pkg/b.py", "# TODO: tidy\nx = 1\ny = 2\nz = 3\nTODO again\n", 2_000)
    put(root / "notes.md", "todo in markdown\n", 3_000)
    put(root / "ignored/c.py", "TODO hidden by gitignore\n", 4_000)
    put(root / ".gitignore", "ignored/\n", 0)
    (root / "bin.dat").write_bytes(b"TODO\x00binary")
    return root


async def grep(ctx: ToolContext, use_rg: bool, **args: Any):
    return await GrepTool(use_ripgrep=use_rg).run(args, ctx)


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_files_mode_lists_matching_files_newest_first(
    ctx: ToolContext, tree: Path, use_rg: bool
) -> None:
    result = await grep(ctx, use_rg, pattern="TODO", **{"-i": True})
    assert result.content.splitlines() == [str(tree / "notes.md"), str(tree / "pkg/b.py")]
    assert result.context_paths == []


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_content_mode_prints_path_line_text(
    ctx: ToolContext, tree: Path, use_rg: bool
) -> None:
    result = await grep(ctx, use_rg, pattern="TODO", output_mode="content")
    assert result.content.splitlines() == [
        f"{tree / 'pkg/b.py'}:1:# TODO: tidy",
        f"{tree / 'pkg/b.py'}:5:TODO again",
    ]
    assert result.context_paths == [tree / "pkg/b.py"]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_context_shows_surrounding_lines(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    b = tree / "pkg/b.py"
    result = await grep(ctx, use_rg, pattern="^x", path=str(b), output_mode="content", **{"-C": 1})
    assert result.content.splitlines() == [f"{b}-1-# TODO: tidy", f"{b}:2:x = 1", f"{b}-3-y = 2"]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_non_adjacent_groups_are_separated(
    ctx: ToolContext, tree: Path, use_rg: bool
) -> None:
    b = tree / "pkg/b.py"
    result = await grep(ctx, use_rg, pattern="TODO", path="pkg", output_mode="content", **{"-A": 1})
    assert result.content.splitlines() == [
        f"{b}:1:# TODO: tidy",
        f"{b}-2-x = 1",
        "--",
        f"{b}:5:TODO again",
    ]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_line_numbers_can_be_turned_off(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    result = await grep(ctx, use_rg, pattern="getcwd", output_mode="content", **{"-n": False})
    assert result.content == f"{tree / 'a.py'}:    return os.getcwd()"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_count_mode(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    result = await grep(ctx, use_rg, pattern="todo", output_mode="count", **{"-i": True})
    assert result.content.splitlines() == [f"{tree / 'notes.md'}:1", f"{tree / 'pkg/b.py'}:2"]
    assert result.context_paths == []


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_glob_and_type_filters(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    by_glob = await grep(ctx, use_rg, pattern="o", glob="*.md")
    by_type = await grep(ctx, use_rg, pattern=".", type="py")
    assert by_glob.content == str(tree / "notes.md")
    assert by_type.content.splitlines() == [str(tree / "pkg/b.py"), str(tree / "a.py")]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_multiline_patterns_span_lines(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    a = tree / "a.py"
    result = await grep(
        ctx, use_rg, pattern=r"def handler.*getcwd", output_mode="content", multiline=True
    )
    assert result.content.splitlines() == [f"{a}:3:def handler():", f"{a}:4:    return os.getcwd()"]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_head_limit_keeps_the_first_entries(
    ctx: ToolContext, tree: Path, use_rg: bool
) -> None:
    result = await grep(ctx, use_rg, pattern="o", head_limit=1)
    first, *rest = result.content.splitlines()
    assert first == str(tree / "notes.md")
    assert "first 1 of 3" in rest[-1]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_no_matches(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    result = await grep(ctx, use_rg, pattern="nothing-like-this")
    assert not result.is_error and result.content == "No matches found"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_invalid_regex_is_an_error(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    assert (await grep(ctx, use_rg, pattern="(unclosed")).is_error


@pytest.mark.parametrize(
    "args",
    [
        {"pattern": "o"},
        {"pattern": "o", "output_mode": "content", "-C": 2},
        {"pattern": "TODO", "output_mode": "count"},
        {"pattern": "^\\s+return", "output_mode": "content", "-i": True},
    ],
)
async def test_both_backends_give_identical_output(
    ctx: ToolContext, tree: Path, args: dict[str, Any]
) -> None:
    with_rg = await grep(ctx, True, **args)
    fallback = await grep(ctx, False, **args)
    assert (with_rg.content, with_rg.context_paths) == (fallback.content, fallback.context_paths)


async def test_bad_arguments(ctx: ToolContext) -> None:
    tool = GrepTool()
    assert (await tool.run({}, ctx)).is_error
    assert "output_mode" in (await tool.run({"pattern": "x", "output_mode": "lines"}, ctx)).content
    assert (await tool.run({"pattern": "x", "path": "missing"}, ctx)).is_error
    assert (await tool.run({"pattern": "x", "-A": -1}, ctx)).is_error


# Characters str.splitlines treats as line breaks but ripgrep and Read do not.
ODD_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.fixture
def odd_file(ctx: ToolContext) -> Path:
    body = "".join(f"odd{c}char {i}\n" for i, c in enumerate(ODD_BREAKS)) + "last target\n"
    path = ctx.workdir / "odd.txt"
    path.write_text("target first\n" + body, encoding="utf-8")
    return path


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_line_numbers_count_newlines_only(
    ctx: ToolContext, odd_file: Path, use_rg: bool
) -> None:
    # Bug: the fallback split with str.splitlines, so \x0c, \x85, U+2028 ... shifted line numbers.
    result = await grep(ctx, use_rg, pattern="target", output_mode="content")
    last = 2 + len(ODD_BREAKS)
    assert result.content == f"{odd_file}:1:target first\n{odd_file}:{last}:last target"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_multiline_line_numbers_count_newlines_only(
    ctx: ToolContext, odd_file: Path, use_rg: bool
) -> None:
    # Bug: multiline hits were split with str.splitlines even for ripgrep's output.
    result = await grep(ctx, use_rg, pattern="char 7\\nlast", output_mode="content", multiline=True)
    last = 2 + len(ODD_BREAKS)
    assert result.content == (
        f"{odd_file}:{last - 1}:odd\u2029char 7\n{odd_file}:{last}:last target"
    )


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_grep_and_read_number_lines_alike(
    ctx: ToolContext, odd_file: Path, use_rg: bool
) -> None:
    from wave_tui.tools.read import ReadTool

    hit = (await grep(ctx, use_rg, pattern="char 5", output_mode="content")).content
    number = int(hit.split(":")[1])
    read = await ReadTool().run({"file_path": str(odd_file), "offset": number, "limit": 1}, ctx)
    assert "char 5" in read.content.split("\n")[0]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_carriage_returns_are_trimmed_but_stay_part_of_the_line(
    ctx: ToolContext, use_rg: bool
) -> None:
    path = ctx.workdir / "crlf.txt"
    path.write_bytes(b"one\r\ntwo target\r\n")
    shown = await grep(ctx, use_rg, pattern="target", output_mode="content")
    assert shown.content == f"{path}:2:two target"
    # As in ripgrep without --crlf, `$` does not match before the "\r".
    assert (await grep(ctx, use_rg, pattern="target$")).content == "No matches found"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_glob_parameter_expands_braces(ctx: ToolContext, tree: Path, use_rg: bool) -> None:
    # Bug: the fallback ignored `{a,b}` alternation, so "*.{py,md}" matched nothing.
    result = await grep(ctx, use_rg, pattern="(?i)todo", glob="*.{py,md}")
    assert sorted(result.content.splitlines()) == [str(tree / "notes.md"), str(tree / "pkg/b.py")]
    nested = await grep(ctx, use_rg, pattern="(?i)todo", glob="{pkg/*.{py,rs},*.txt}")
    assert nested.content == str(tree / "pkg/b.py")


def test_ripgrep_comes_with_wave() -> None:
    """`rg` is a dependency (the ripgrep wheel): the ripgrep cases run everywhere, never skip."""
    assert find_ripgrep() is not None
