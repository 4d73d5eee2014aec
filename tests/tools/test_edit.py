from __future__ import annotations

from pathlib import Path

from wave_tui.tools.base import ToolContext
from wave_tui.tools.edit import EditTool
from wave_tui.tools.read import ReadTool


async def edit(ctx: ToolContext, **args: object):
    return await EditTool().run(dict(args), ctx)


async def read_file(ctx: ToolContext, text: str, name: str = "f.py", **window: int) -> Path:
    path = ctx.workdir / name
    path.write_text(text, encoding="utf-8")
    await ReadTool().run({"file_path": name, **window}, ctx)
    return path


async def test_replaces_a_unique_string_and_shows_the_region(ctx: ToolContext) -> None:
    path = await read_file(ctx, "a = 1\nb = 2\nc = 3\n")
    result = await edit(ctx, file_path="f.py", old_string="b = 2", new_string="b = 20")
    assert not result.is_error
    assert path.read_text(encoding="utf-8") == "a = 1\nb = 20\nc = 3\n"
    assert "     2\tb = 20" in result.content
    assert result.written_paths == [path]


async def test_updates_read_state_so_a_second_edit_works(ctx: ToolContext) -> None:
    path = await read_file(ctx, "x\ny\n")
    await edit(ctx, file_path="f.py", old_string="x", new_string="X")
    entry = ctx.read_state.get(path)
    assert entry is not None and entry.written_by_agent and entry.content == "X\ny\n"
    assert not (await edit(ctx, file_path="f.py", old_string="y", new_string="Y")).is_error


async def test_a_partial_read_is_enough(ctx: ToolContext) -> None:
    path = await read_file(ctx, "1\n2\n3\n", offset=2, limit=1)
    assert not (await edit(ctx, file_path="f.py", old_string="3", new_string="three")).is_error
    assert path.read_text(encoding="utf-8") == "1\n2\nthree\n"


async def test_requires_a_prior_read(ctx: ToolContext) -> None:
    (ctx.workdir / "f.py").write_text("x\n", encoding="utf-8")
    result = await edit(ctx, file_path="f.py", old_string="x", new_string="y")
    assert result.is_error and "Read it first" in result.content


async def test_refused_when_the_file_changed_since_the_read(ctx: ToolContext) -> None:
    path = await read_file(ctx, "x\n")
    path.write_text("x\nexternal\n", encoding="utf-8")
    result = await edit(ctx, file_path="f.py", old_string="x", new_string="y")
    assert result.is_error and "modified since it was read" in result.content


async def test_ambiguous_match_reports_the_count(ctx: ToolContext) -> None:
    path = await read_file(ctx, "x = 1\nx = 1\nx = 1\n")
    result = await edit(ctx, file_path="f.py", old_string="x = 1", new_string="x = 2")
    assert result.is_error and "3 times" in result.content and "replace_all" in result.content
    assert path.read_text(encoding="utf-8") == "x = 1\nx = 1\nx = 1\n"


async def test_replace_all_changes_every_occurrence(ctx: ToolContext) -> None:
    path = await read_file(ctx, "foo()\nfoo()\n")
    result = await edit(ctx, file_path="f.py", old_string="foo", new_string="bar", replace_all=True)
    assert not result.is_error and "2 replacements" in result.content
    assert path.read_text(encoding="utf-8") == "bar()\nbar()\n"


async def test_not_found_empty_and_identical_strings_are_errors(ctx: ToolContext) -> None:
    await read_file(ctx, "x\n")
    assert (
        "not found" in (await edit(ctx, file_path="f.py", old_string="zzz", new_string="y")).content
    )
    assert (await edit(ctx, file_path="f.py", old_string="", new_string="y")).is_error
    assert (
        "identical" in (await edit(ctx, file_path="f.py", old_string="x", new_string="x")).content
    )


async def test_missing_file_points_to_write(ctx: ToolContext) -> None:
    result = await edit(ctx, file_path="nope.py", old_string="a", new_string="b")
    assert result.is_error and "Write" in result.content


async def test_crlf_files_match_newline_written_old_strings(ctx: ToolContext) -> None:
    path = ctx.workdir / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    await ReadTool().run({"file_path": "win.txt"}, ctx)
    result = await edit(ctx, file_path="win.txt", old_string="one\ntwo", new_string="1\n2")
    assert not result.is_error
    assert path.read_bytes() == b"1\r\n2\r\n"


async def test_no_temp_files_are_left_behind(ctx: ToolContext) -> None:
    await read_file(ctx, "x\n")
    await edit(ctx, file_path="f.py", old_string="x", new_string="y")
    assert [p.name for p in ctx.workdir.iterdir()] == ["f.py"]
