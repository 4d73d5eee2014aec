"""Edit: exact string replacement in a file the agent has read.

`edit_text` is the replacement itself (and every refusal about the strings); the permission
preview calls `planned_edit`, so the diff the user approves is the tool's own result, and a call
the tool would refuse shows that refusal instead.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

from wave_tui.config.records import record
from wave_tui.files.text_files import ensure_fresh, load_text_sync, split_lines
from wave_tui.tools.arguments import Arg, TypedTool, parse_args, tool_arguments
from wave_tui.tools.base import (
    ToolContext,
    ToolError,
    ToolResult,
    resolve_path,
    write_target,
    write_text_and_stat,
)
from wave_tui.tools.read import format_line

SNIPPET_CONTEXT = 3
SNIPPET_MAX_LINES = 40
DIFF_CONTEXT = 3
DIFF_MAX_LINES = 200  # of the diff the user sees (the chat); the rest is counted

DESCRIPTION = """\
Replace an exact string in a file.
- You must Read the file first; the edit is refused if the file changed on disk since then.
- old_string must match the file exactly, including indentation and whitespace. Do not include the \
line-number prefix from Read output.
- The edit fails if old_string is not found, or if it occurs more than once: add surrounding lines \
to make it unique, or set replace_all to true to replace every occurrence (e.g. renaming).
- new_string must differ from old_string."""


def _snippet(text: str, start_char: int, new_len: int) -> str:
    """The edited region with a few lines of context, numbered like Read output."""
    lines = split_lines(text)
    first = text.count("\n", 0, start_char)
    last = text.count("\n", 0, start_char + new_len)
    lo = max(0, first - SNIPPET_CONTEXT)
    hi = min(len(lines), last + SNIPPET_CONTEXT + 1, lo + SNIPPET_MAX_LINES)
    return "\n".join(format_line(i + 1, lines[i]) for i in range(lo, hi))


def change_diff(old: str, new: str) -> str:
    """What a write changed, as unified diff hunks (no file header) for the user. CPU-bound on
    a big file: call from a thread."""
    import difflib  # with the first write, not at start-up

    lines = list(
        difflib.unified_diff(split_lines(old), split_lines(new), n=DIFF_CONTEXT, lineterm="")
    )[2:]  # the ---/+++ header: the chat names the file already
    if len(lines) > DIFF_MAX_LINES:
        lines = [*lines[:DIFF_MAX_LINES], f"… {len(lines) - DIFF_MAX_LINES} more diff lines"]
    return "\n".join(lines)


@tool_arguments
class EditArgs:
    file_path: Annotated[str, Arg("Path of the file to edit.")]
    old_string: Annotated[str, Arg("The exact text to replace.")]
    new_string: Annotated[str, Arg("The replacement text.")]
    replace_all: Annotated[
        bool,
        Arg("Replace every occurrence of old_string (default false).", schema_default=True),
    ] = False


class EditTool(TypedTool[EditArgs]):
    name = "Edit"
    description = DESCRIPTION
    read_only = False
    arguments = EditArgs

    async def check(self, args: EditArgs, ctx: ToolContext) -> None:
        _check_strings(args)
        path = resolve_path(args.file_path, ctx.workdir)
        if not path.exists():
            raise ToolError(_missing(path))
        current = await asyncio.to_thread(ensure_fresh, path, ctx.read_state.get(path))
        edit_text(args, path, current.text)

    # req: N4
    async def call(self, args: EditArgs, ctx: ToolContext) -> ToolResult:
        _check_strings(args)
        path = write_target(args.file_path, ctx)
        if not path.exists():
            raise ToolError(_missing(path))
        current = await asyncio.to_thread(ensure_fresh, path, ctx.read_state.get(path))
        edited = edit_text(args, path, current.text)
        try:
            mtime_ns = await asyncio.to_thread(write_text_and_stat, path, edited.text)
        except OSError as exc:
            raise ToolError(f"Cannot write {path}: {exc.strerror or exc}") from exc
        written = ctx.read_state.record_text(path, edited.text, mtime_ns, written_by_agent=True)

        what = f"{edited.count} replacement{'s' if edited.count != 1 else ''}"
        diff = await asyncio.to_thread(change_diff, current.text, edited.text)
        return ToolResult(
            content=(
                f"Edited {path} ({what}). The region around the first change now reads:\n"
                f"{_snippet(edited.text, edited.start, edited.new_length)}"
            ),
            summary=f"Edited file ({what})",
            context_paths=[path],
            written_paths=[path],
            written_hashes={path: written.sha256},
            diff=diff,
        )


@record
class EditedText:
    """A file's text once an edit is applied: where its first replacement starts, how long the
    replacement is, and how many were made."""

    text: str
    start: int
    new_length: int
    count: int


def _check_strings(args: EditArgs) -> None:
    if args.old_string == "":
        raise ToolError("old_string must not be empty. To create a file, use Write.")
    if args.old_string == args.new_string:
        raise ToolError("old_string and new_string are identical; there is nothing to change.")


def _missing(path: Path) -> str:
    return f"File does not exist: {path}. To create it, use Write."


def edit_text(args: EditArgs, path: Path, text: str) -> EditedText:
    """`text` with the edit applied, or the ToolError the tool answers with (`old_string`
    empty, unchanged, not found, or not unique without `replace_all`)."""
    _check_strings(args)
    old, new = args.old_string, args.new_string
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old:
        # The model writes "\n"; a CRLF file stores "\r\n". Match in the file's own convention.
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = text.count(old)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {path}. It must match the file exactly, including "
            "whitespace and indentation; Read the file again if unsure."
        )
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {path}. Add surrounding context to make it "
            "unique, or set replace_all to true to replace every occurrence."
        )
    start = text.index(old)
    updated = text.replace(old, new) if args.replace_all else text.replace(old, new, 1)
    return EditedText(updated, start, len(new), count if args.replace_all else 1)


# req: UX18
def planned_edit(raw: dict[str, Any], workdir: Path) -> tuple[str, EditedText]:
    """What an Edit call would do to its file as it is now (the permission preview; blocking):
    the text before and the edit, or the ToolError the tool would answer with. Whether the agent
    read the file first is the tool's own check when it runs."""
    args = parse_args(EditArgs, raw)
    _check_strings(args)
    path = resolve_path(args.file_path, workdir)
    if not path.exists():
        raise ToolError(_missing(path))
    before = load_text_sync(path).text
    return before, edit_text(args, path, before)
