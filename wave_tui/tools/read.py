"""Read: a text file's lines, numbered like `cat -n`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from wave_tui.files.images import is_image_path
from wave_tui.files.read_state import content_hash
from wave_tui.files.text_files import load_text, split_lines
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult, resolve_path

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000

DESCRIPTION = """\
Read a text file from the local filesystem.
- file_path: absolute path, or relative to the working directory.
- By default reads up to 2000 lines from the start. For long files pass offset (1-based first line) \
and limit (number of lines) to read a window.
- Output is numbered like `cat -n` (line number, a tab, then the line). The number and tab are not \
part of the file: never include them in Edit's old_string.
- Lines longer than 2000 characters are cut.
- Images (.png, .jpg, .jpeg, .gif, .webp) are shown to you as images, scaled to at most 2000 px.
- Other binary files (PDFs, archives, executables) cannot be read. Use Glob or `ls` for directories.
- Reading a file is required before you Edit or overwrite it with Write."""


def format_line(number: int, line: str) -> str:
    if len(line) > MAX_LINE_CHARS:
        extra = len(line) - MAX_LINE_CHARS
        line = f"{line[:MAX_LINE_CHARS]}… [line truncated: {extra} more characters]"
    return f"{number:>6}\t{line}"


def format_read_result(path: Path, lines: list[str], start: int, total: int) -> str:
    """The model-facing body of a successful read: numbered lines plus a note when more remain."""
    if total == 0:
        return f"(The file {path} exists but is empty.)"
    body = "\n".join(format_line(start + i, line) for i, line in enumerate(lines))
    end = start + len(lines) - 1
    if end < total:
        body += (
            f"\n\n(Showing lines {start}-{end} of {total}. Use offset={end + 1} to read further.)"
        )
    return body


@tool_arguments
class ReadArgs:
    file_path: Annotated[str, Arg("Path of the file to read.")]
    offset: Annotated[
        int | None, Arg("1-based line number to start reading from (default 1).", minimum=1)
    ] = None
    limit: Annotated[
        int | None,
        Arg(f"Maximum number of lines to read (default {DEFAULT_LIMIT}).", minimum=1),
    ] = None


class ReadTool(TypedTool[ReadArgs]):
    name = "Read"
    description = DESCRIPTION
    read_only = True
    arguments = ReadArgs

    async def call(self, args: ReadArgs, ctx: ToolContext) -> ToolResult:
        offset, limit = args.offset, args.limit
        path = resolve_path(args.file_path, ctx.workdir)
        if is_image_path(path):
            from wave_tui.tools.image_read import read_image  # only when an image is read

            return await read_image(path)
        loaded = await load_text(path)

        previous = ctx.read_state.get(path)
        if (
            previous is not None
            and previous.content_was_shown
            and previous.offset == offset
            and previous.limit == limit
            and previous.mtime_ns == loaded.mtime_ns
            and previous.sha256 == content_hash(loaded.text)
        ):
            return ToolResult(
                content=(
                    f"File unchanged since the last Read of {path} with the same offset/limit; "
                    "the content shown earlier is still current."
                ),
                summary="Unchanged since last read",
            )

        all_lines = split_lines(loaded.text)
        total = len(all_lines)
        start = offset or 1
        if total and start > total:
            raise ToolError(
                f"offset {start} is past the end of {path}, which has {total} line"
                f"{'s' if total != 1 else ''}."
            )
        window = all_lines[start - 1 : start - 1 + (limit or DEFAULT_LIMIT)]
        ctx.read_state.record_text(path, loaded.text, loaded.mtime_ns, offset=offset, limit=limit)
        return ToolResult(
            content=format_read_result(path, window, start, total),
            summary=f"Read {len(window)} line{'s' if len(window) != 1 else ''}",
            context_paths=[path],
            read_paths=[path],
        )
