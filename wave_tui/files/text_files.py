"""Loading text files for the file tools: binary sniffing, strict UTF-8, freshness checks."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from stat import S_ISREG

from wave_tui.config.records import record
from wave_tui.files.read_state import ReadEntry, content_hash

SNIFF_BYTES = 8192


class ToolError(Exception):
    """Raised by a tool for a clean, model-facing error result.

    Its home is here, below the tools, because the file loaders are the lowest code that refuses
    with a message the model can act on; `tools.base` re-exports it as the tool protocol's error.
    """


BINARY_EXTENSIONS = frozenset(
    {
        # images / media
        ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd",
        ".mp3", ".mp4", ".wav", ".ogg", ".flac", ".avi", ".mov", ".mkv", ".webm",
        # documents
        ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp",
        # archives
        ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".zst", ".jar", ".whl",
        # compiled / binaries
        ".so", ".dylib", ".dll", ".exe", ".o", ".a", ".lib", ".bin", ".class", ".pyc", ".pyo",
        ".wasm", ".dat", ".db", ".sqlite", ".sqlite3",
        # fonts
        ".ttf", ".otf", ".woff", ".woff2", ".eot",
    }
)  # fmt: skip


@record
class LoadedText:
    path: Path
    text: str
    mtime_ns: int


def split_lines(text: str) -> list[str]:
    """Lines as the user sees them: no terminators, no phantom line after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _read_regular(path: Path) -> tuple[os.stat_result, bytes]:
    """stat and bytes of a regular file. Opened non-blocking and checked on the open descriptor,
    so a FIFO or device (also one swapped in after a check) is refused instead of blocking."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        stat = os.fstat(fd)
        if not S_ISREG(stat.st_mode):
            raise ToolError(
                f"{path} is not a regular file (a FIFO, socket or device); it cannot be read."
            )
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return stat, fh.read()
    finally:
        os.close(fd)


# req: X14
def load_text_sync(path: Path) -> LoadedText:
    """The whole file as UTF-8 text, or a ToolError whose message the model can act on."""
    if not path.exists():
        raise ToolError(f"File does not exist: {path}")
    if path.is_dir():
        raise ToolError(f"{path} is a directory, not a file. Use Glob or `ls` to list it.")
    if path.suffix.lower() in BINARY_EXTENSIONS:
        raise ToolError(
            f"{path} is a binary file ({path.suffix} extension); it cannot be read as text."
        )
    try:
        stat, data = _read_regular(path)
    except OSError as exc:
        raise ToolError(f"Cannot read {path}: {exc.strerror or exc}") from exc
    if b"\x00" in data[:SNIFF_BYTES]:
        raise ToolError(f"{path} is a binary file (contains NUL bytes); it cannot be read as text.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{path} is not valid UTF-8 text (invalid byte at offset {exc.start}); it cannot be read as text."
        ) from exc
    return LoadedText(path=path, text=text, mtime_ns=stat.st_mtime_ns)


async def load_text(path: Path) -> LoadedText:
    return await asyncio.to_thread(load_text_sync, path)


def ensure_fresh(path: Path, entry: ReadEntry | None) -> LoadedText:
    """The current text of a file the agent is about to overwrite; refuses unread or stale files.

    Content (hash) is the authority: a bare `touch` changes mtime but not what the agent saw, and
    mtime alone can miss two writes within the filesystem's timestamp granularity.
    """
    if entry is None:
        raise ToolError(f"{path} has not been read yet. Read it first before writing to it.")
    try:
        current = load_text_sync(path)
    except ToolError as exc:
        raise ToolError(
            f"{path} has been modified since it was read and can no longer be read as text "
            f"({exc}). Read it again before writing."
        ) from exc
    if content_hash(current.text) != entry.sha256:
        raise ToolError(
            f"{path} has been modified since it was read (by the user or another process). "
            "Read it again before writing."
        )
    return current
