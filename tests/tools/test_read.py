from __future__ import annotations

import os
from pathlib import Path

import pytest

from wave_tui.tools.base import ToolContext
from wave_tui.tools.read import ReadTool


async def read(ctx: ToolContext, **args: object):
    return await ReadTool().run(dict(args), ctx)


def write_lines(path: Path, count: int) -> None:
    path.write_text("".join(f"line {i}\n" for i in range(1, count + 1)), encoding="utf-8")


async def test_output_is_numbered_like_cat_n(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    result = await read(ctx, file_path="a.txt")
    assert not result.is_error
    assert result.content == "     1\talpha\n     2\tbeta"
    path = ctx.workdir / "a.txt"
    assert result.read_paths == [path] and result.context_paths == [path]


async def test_offset_and_limit_select_a_window_and_say_what_remains(ctx: ToolContext) -> None:
    write_lines(ctx.workdir / "a.txt", 10)
    result = await read(ctx, file_path="a.txt", offset=3, limit=2)
    assert result.content.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "Showing lines 3-4 of 10" in result.content
    assert "offset=5" in result.content


async def test_default_limit_is_2000_lines(ctx: ToolContext) -> None:
    write_lines(ctx.workdir / "big.txt", 2500)
    result = await read(ctx, file_path="big.txt")
    numbered = [line for line in result.content.splitlines() if "\t" in line]
    assert len(numbered) == 2000
    assert "of 2500" in result.content


async def test_full_read_records_state_without_offset_or_limit(ctx: ToolContext) -> None:
    path = ctx.workdir / "a.txt"
    path.write_text("x\n", encoding="utf-8")
    await read(ctx, file_path=str(path))
    entry = ctx.read_state.get(path)
    assert entry is not None and entry.is_full
    assert entry.content == "x\n" and entry.mtime_ns == path.stat().st_mtime_ns


async def test_partial_read_records_the_given_window_and_whole_text(ctx: ToolContext) -> None:
    path = ctx.workdir / "a.txt"
    write_lines(path, 5)
    await read(ctx, file_path="a.txt", offset=2)
    entry = ctx.read_state.get(path)
    assert entry is not None
    assert (entry.offset, entry.limit) == (2, None)
    assert entry.content == path.read_text(encoding="utf-8")


async def test_very_long_lines_are_cut_with_a_marker(ctx: ToolContext) -> None:
    (ctx.workdir / "min.js").write_text("x" * 5000 + "\n", encoding="utf-8")
    result = await read(ctx, file_path="min.js")
    assert len(result.content) < 2200
    assert "3000 more characters" in result.content


async def test_nul_bytes_mean_binary(ctx: ToolContext) -> None:
    (ctx.workdir / "blob").write_bytes(b"abc\x00def")
    result = await read(ctx, file_path="blob")
    assert result.is_error and "binary" in result.content and "blob" in result.content


async def test_known_binary_extension_is_refused_without_sniffing(ctx: ToolContext) -> None:
    (ctx.workdir / "doc.pdf").write_text("not really a pdf", encoding="utf-8")
    result = await read(ctx, file_path="doc.pdf")
    assert result.is_error and "binary" in result.content


@pytest.mark.req("IM1")
async def test_an_image_name_over_text_is_one_clear_image_error(ctx: ToolContext) -> None:
    (ctx.workdir / "pic.png").write_text("not really a png", encoding="utf-8")
    result = await read(ctx, file_path="pic.png")
    assert result.is_error and not result.images
    assert result.content == "pic.png is not the PNG, JPEG, GIF or WebP image its name says it is."


async def test_invalid_utf8_reports_the_byte_offset(ctx: ToolContext) -> None:
    (ctx.workdir / "latin1.txt").write_bytes(b"caf\xe9\n")
    result = await read(ctx, file_path="latin1.txt")
    assert result.is_error
    assert "not valid UTF-8" in result.content and "offset 3" in result.content


async def test_missing_file(ctx: ToolContext) -> None:
    result = await read(ctx, file_path="nope.txt")
    assert result.is_error
    assert result.content == f"File does not exist: {ctx.workdir / 'nope.txt'}"


async def test_directory_is_an_error(ctx: ToolContext) -> None:
    (ctx.workdir / "sub").mkdir()
    result = await read(ctx, file_path="sub")
    assert result.is_error and "directory" in result.content


async def test_empty_file_gets_a_note(ctx: ToolContext) -> None:
    (ctx.workdir / "empty.txt").write_text("", encoding="utf-8")
    result = await read(ctx, file_path="empty.txt")
    assert not result.is_error and "empty" in result.content


async def test_offset_past_the_end_names_the_line_count(ctx: ToolContext) -> None:
    write_lines(ctx.workdir / "a.txt", 3)
    result = await read(ctx, file_path="a.txt", offset=10)
    assert result.is_error and "3 lines" in result.content


async def test_bad_arguments_are_clear_errors(ctx: ToolContext) -> None:
    assert "file_path" in (await read(ctx)).content
    assert (await read(ctx, file_path=3)).is_error
    write_lines(ctx.workdir / "a.txt", 3)
    bad_offset = await read(ctx, file_path="a.txt", offset=0)
    assert bad_offset.is_error and "offset" in bad_offset.content
    assert (await read(ctx, file_path="a.txt", limit="many")).is_error


async def test_rereading_an_unchanged_file_returns_a_short_note(ctx: ToolContext) -> None:
    write_lines(ctx.workdir / "a.txt", 3)
    await read(ctx, file_path="a.txt")
    again = await read(ctx, file_path="a.txt")
    assert not again.is_error
    assert again.content.startswith("File unchanged since the last Read")


async def test_a_different_window_or_a_changed_file_is_read_again(ctx: ToolContext) -> None:
    path = ctx.workdir / "a.txt"
    write_lines(path, 3)
    await read(ctx, file_path="a.txt")
    assert "\tline 2" in (await read(ctx, file_path="a.txt", offset=2)).content
    await read(ctx, file_path="a.txt")
    path.write_text("changed\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))
    assert "\tchanged" in (await read(ctx, file_path="a.txt")).content
