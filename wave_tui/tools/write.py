"""Write: create a file or replace one the agent has read."""

from __future__ import annotations

import asyncio
from typing import Annotated

from wave_tui.files.text_files import ensure_fresh, split_lines
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import (
    ToolContext,
    ToolError,
    ToolResult,
    resolve_path,
    write_target,
    write_text_and_stat,
)
from wave_tui.tools.edit import change_diff

DESCRIPTION = """\
Write a file to the local filesystem, creating parent directories as needed.
- Overwrites the file if it exists: you must Read an existing file first, and the write is refused \
if it changed on disk since you read it.
- Prefer Edit for changing part of an existing file; use Write for new files or complete rewrites.
- Do not create documentation or README files unless asked."""


@tool_arguments
class WriteArgs:
    file_path: Annotated[str, Arg("Path of the file to write.")]
    content: Annotated[str, Arg("The complete new content of the file.")]


class WriteTool(TypedTool[WriteArgs]):
    name = "Write"
    description = DESCRIPTION
    read_only = False
    arguments = WriteArgs

    async def check(self, args: WriteArgs, ctx: ToolContext) -> None:
        path = resolve_path(args.file_path, ctx.workdir)
        if path.is_dir():
            raise ToolError(f"{path} is a directory; give the path of a file.")
        if path.exists():
            await asyncio.to_thread(ensure_fresh, path, ctx.read_state.get(path))

    # req: N4
    async def call(self, args: WriteArgs, ctx: ToolContext) -> ToolResult:
        content = args.content
        path = write_target(args.file_path, ctx)
        if path.is_dir():
            raise ToolError(f"{path} is a directory; give the path of a file.")
        existed = path.exists()
        before = None
        if existed:
            before = await asyncio.to_thread(ensure_fresh, path, ctx.read_state.get(path))
        try:
            mtime_ns = await asyncio.to_thread(write_text_and_stat, path, content)
        except OSError as exc:
            raise ToolError(f"Cannot write {path}: {exc.strerror or exc}") from exc
        written = ctx.read_state.record_text(path, content, mtime_ns, written_by_agent=True)
        count = len(split_lines(content))
        verb = "Updated" if existed else "Created"
        diff = await asyncio.to_thread(change_diff, before.text, content) if before else ""
        noun = f"{count} line{'s' if count != 1 else ''}"
        return ToolResult(
            content=f"{verb} {path} ({noun}).",
            summary=f"{verb} file ({noun})",
            context_paths=[path],
            written_paths=[path],
            written_hashes={path: written.sha256},
            diff=diff,
        )
