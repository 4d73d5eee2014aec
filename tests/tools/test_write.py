from __future__ import annotations

from pathlib import Path

from wave_tui.tools.base import ToolContext
from wave_tui.tools.read import ReadTool
from wave_tui.tools.write import WriteTool


async def write(ctx: ToolContext, **args: object):
    return await WriteTool().run(dict(args), ctx)


async def test_creates_a_new_file_with_parent_directories(ctx: ToolContext) -> None:
    result = await write(ctx, file_path="deep/er/new.py", content="a\nb\n")
    path = ctx.workdir / "deep/er/new.py"
    assert not result.is_error
    assert path.read_text(encoding="utf-8") == "a\nb\n"
    assert "Created" in result.content and "2 lines" in result.content
    assert result.written_paths == [path] and result.context_paths == [path]


async def test_records_the_written_text_as_read_by_the_agent(ctx: ToolContext) -> None:
    await write(ctx, file_path="new.txt", content="hello")
    path = ctx.workdir / "new.txt"
    entry = ctx.read_state.get(path)
    assert entry is not None and entry.written_by_agent and entry.is_full
    assert entry.content == "hello" and entry.mtime_ns == path.stat().st_mtime_ns


async def test_existing_file_must_be_read_first(ctx: ToolContext) -> None:
    (ctx.workdir / "old.txt").write_text("keep me", encoding="utf-8")
    result = await write(ctx, file_path="old.txt", content="clobber")
    assert result.is_error and "Read it first" in result.content
    assert (ctx.workdir / "old.txt").read_text(encoding="utf-8") == "keep me"


async def test_updates_a_file_that_was_read(ctx: ToolContext) -> None:
    (ctx.workdir / "old.txt").write_text("v1\n", encoding="utf-8")
    await ReadTool().run({"file_path": "old.txt"}, ctx)
    result = await write(ctx, file_path="old.txt", content="v2\n")
    assert not result.is_error and "Updated" in result.content
    assert (ctx.workdir / "old.txt").read_text(encoding="utf-8") == "v2\n"


async def test_refused_when_the_file_changed_on_disk_after_the_read(ctx: ToolContext) -> None:
    path = ctx.workdir / "old.txt"
    path.write_text("v1\n", encoding="utf-8")
    await ReadTool().run({"file_path": "old.txt"}, ctx)
    path.write_text("someone else\n", encoding="utf-8")
    result = await write(ctx, file_path="old.txt", content="v2\n")
    assert result.is_error and "modified since it was read" in result.content
    assert path.read_text(encoding="utf-8") == "someone else\n"


async def test_a_second_write_after_the_agents_own_write_is_allowed(ctx: ToolContext) -> None:
    await write(ctx, file_path="f.txt", content="one")
    assert not (await write(ctx, file_path="f.txt", content="two")).is_error


async def test_replacement_is_atomic_and_leaves_no_temp_files(ctx: ToolContext) -> None:
    path = ctx.workdir / "f.txt"
    path.write_text("v1", encoding="utf-8")
    path.chmod(0o640)
    await ReadTool().run({"file_path": "f.txt"}, ctx)
    await write(ctx, file_path="f.txt", content="v2")
    assert sorted(p.name for p in ctx.workdir.iterdir()) == ["f.txt"]
    assert path.stat().st_mode & 0o777 == 0o640


async def test_directory_target_and_bad_arguments_are_errors(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (ctx.workdir / "dir").mkdir()
    assert (await write(ctx, file_path="dir", content="x")).is_error
    missing = await write(ctx, file_path="x.txt")
    assert missing.is_error and "content" in missing.content
    assert (await write(ctx, file_path="x.txt", content=["not", "text"])).is_error
