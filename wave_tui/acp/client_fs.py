"""Read and Write through the ACP client's file system (`fs/read_text_file`,
`fs/write_text_file`) when the client offers it: the editor's unsaved buffers are what the
agent reads, and its writes go where the editor can show and undo them.

They are the built-in Read and Write with their I/O replaced: the same arguments, checks,
numbering, read state and memory triggers (a Read still loads nested AGENTS.md and path rules).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp

from wave_tui.files.text_files import split_lines
from wave_tui.tools.base import ToolContext, ToolError, ToolResult, resolve_path
from wave_tui.tools.read import DEFAULT_LIMIT, ReadArgs, ReadTool, format_read_result
from wave_tui.tools.write import WriteArgs, WriteTool


def _mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


class ClientRead(ReadTool):
    def __init__(self, conn: Any, session_id: str) -> None:
        self._conn = conn
        self._session_id = session_id

    async def call(self, args: ReadArgs, ctx: ToolContext) -> ToolResult:
        path = resolve_path(args.file_path, ctx.workdir)
        try:
            reply = await self._conn.read_text_file(session_id=self._session_id, path=str(path))
        except acp.RequestError as exc:
            raise ToolError(f"The editor could not read {path}: {exc}") from exc
        text = reply.content
        lines = split_lines(text)
        start = args.offset or 1
        if lines and start > len(lines):
            raise ToolError(f"offset {start} is past the end of {path} ({len(lines)} lines).")
        window = lines[start - 1 : start - 1 + (args.limit or DEFAULT_LIMIT)]
        mtime = await asyncio.to_thread(_mtime_ns, path)
        ctx.read_state.record_text(path, text, mtime, offset=args.offset, limit=args.limit)
        return ToolResult(
            content=format_read_result(path, window, start, len(lines)),
            summary=f"Read {len(window)} line{'s' if len(window) != 1 else ''}",
            context_paths=[path],
            read_paths=[path],
        )


class ClientWrite(WriteTool):
    """Freshness is the editor's: the file must have been read (through the client), and the
    disk may differ from the buffer the agent read, so it is not compared."""

    def __init__(self, conn: Any, session_id: str) -> None:
        self._conn = conn
        self._session_id = session_id

    async def check(self, args: WriteArgs, ctx: ToolContext) -> None:
        path = resolve_path(args.file_path, ctx.workdir)
        if path.is_dir():
            raise ToolError(f"{path} is a directory; give the path of a file.")
        if path.exists() and ctx.read_state.get(path) is None:
            raise ToolError(f"{path} has not been read yet. Read it first before writing to it.")

    async def call(self, args: WriteArgs, ctx: ToolContext) -> ToolResult:
        await self.check(args, ctx)
        path = resolve_path(args.file_path, ctx.workdir)
        existed = path.exists()
        try:
            await self._conn.write_text_file(
                session_id=self._session_id, path=str(path), content=args.content
            )
        except acp.RequestError as exc:
            raise ToolError(f"The editor could not write {path}: {exc}") from exc
        mtime = await asyncio.to_thread(_mtime_ns, path)
        ctx.read_state.record_text(path, args.content, mtime, written_by_agent=True)
        count = len(split_lines(args.content))
        verb = "Updated" if existed else "Created"
        noun = f"{count} line{'s' if count != 1 else ''}"
        return ToolResult(
            content=f"{verb} {path} ({noun}).",
            summary=f"{verb} file ({noun})",
            context_paths=[path],
            written_paths=[path],
        )
