"""Per-agent read state: what the agent has seen of each file.

Write/Edit consult it ("read before write", "changed since read"); change notifications compare it
with the disk; the extraction fork starts from a clone and never writes back.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Literal

from wave_tui.config.records import record

# Where an entry's content came from: the model saw it in full ("read"), produced it ("write"),
# or only saw a diff of it in a change notice ("notice").
EntryOrigin = Literal["read", "write", "notice"]


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@record(bulk=True)
class ReadEntry:
    path: Path  # resolved absolute path
    content: str | None  # the whole file's text at read time (None when not kept)
    sha256: str  # hash of the whole file's text at read time
    mtime_ns: int
    offset: int | None = None
    limit: int | None = None
    read_at: float = 0.0
    origin: EntryOrigin = "read"

    @property
    def written_by_agent(self) -> bool:
        return self.origin == "write"

    @property
    def content_was_shown(self) -> bool:
        """True when the model saw exactly this content through Read (so "unchanged" is honest)."""
        return self.origin == "read"

    @property
    def is_full(self) -> bool:
        return self.offset is None and self.limit is None

    def with_content(self, content: str, mtime_ns: int) -> ReadEntry:
        """The entry after a change notice: the new content is known, but was shown only as a diff."""
        return replace(
            self, content=content, sha256=content_hash(content), mtime_ns=mtime_ns, origin="notice"
        )


class ReadState:
    """Mapping of resolved path -> ReadEntry. Cheap to clone (entries are immutable)."""

    def __init__(self, entries: dict[Path, ReadEntry] | None = None) -> None:
        self._entries: dict[Path, ReadEntry] = dict(entries or {})

    def get(self, path: Path) -> ReadEntry | None:
        return self._entries.get(path)

    def record(self, entry: ReadEntry) -> None:
        self._entries[entry.path] = entry

    def record_text(
        self,
        path: Path,
        content: str,
        mtime_ns: int,
        *,
        offset: int | None = None,
        limit: int | None = None,
        written_by_agent: bool = False,
    ) -> ReadEntry:
        entry = ReadEntry(
            path=path,
            content=content,
            sha256=content_hash(content),
            mtime_ns=mtime_ns,
            offset=offset,
            limit=limit,
            read_at=time.time(),
            origin="write" if written_by_agent else "read",
        )
        self.record(entry)
        return entry

    def forget(self, path: Path) -> None:
        self._entries.pop(path, None)

    def clear(self) -> None:
        self._entries.clear()

    def clone(self) -> ReadState:
        return ReadState(self._entries)

    def paths(self) -> set[Path]:
        """The paths with an entry (a copy)."""
        return set(self._entries)

    def __iter__(self) -> Iterator[ReadEntry]:
        return iter(list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, path: object) -> bool:
        return path in self._entries
