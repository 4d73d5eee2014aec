"""What one compaction dropped and brought back (MR4), for the chat's compaction row, the
summary message's record and `wave sessions show`; and the PreCompact hook's veto.

Dropped: the messages summarised away, how many of them were tool results and how many of those
were file reads. Restored: the files whose recent content the restoration put back after the
summary (read off the summary message, so a file cut for room is not claimed)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from wave_tui.config.records import record
from wave_tui.llm.types import Message
from wave_tui.permissions.tool_table import READ

_RESTORED_RE = re.compile(r"^Recently read file: (.+)$", re.MULTILINE)
SHOWN_FILES = 5  # the chat row names this many restored files, then "and N more"


# req: MR4
class CompactionBlocked(Exception):
    """A PreCompact hook blocked this compaction (exit 2 or `decision: "block"`): the reason."""


# req: MR4
@record
class DroppedCounts:
    messages: int
    file_reads: int
    tool_results: int

    def to_json(self) -> dict[str, int]:
        return {
            "messages": self.messages,
            "file_reads": self.file_reads,
            "tool_results": self.tool_results,
        }

    @classmethod
    def from_json(cls, data: object) -> DroppedCounts | None:
        if not isinstance(data, dict):
            return None
        values = [data.get(k) for k in ("messages", "file_reads", "tool_results")]
        if not all(isinstance(v, int) for v in values):
            return None
        return cls(*values)  # type: ignore[arg-type]


def dropped_counts(gone: Sequence[Message]) -> DroppedCounts:
    tools = [m for m in gone if m.role == "tool"]
    reads = sum(1 for m in tools if m.tool_name == READ)
    return DroppedCounts(len(gone), reads, len(tools))


def restored_files(compress: Message) -> tuple[str, ...]:
    """The files the restoration after the summary brought back, in its order."""
    return tuple(_RESTORED_RE.findall(compress.content))


# req: MR4
def dropped_line(counts: DroppedCounts, restored: Sequence[str]) -> str:
    """`dropped 12 messages (3 file reads, 5 tool results); restored a.py, b.py`."""

    def n(count: int, one: str) -> str:
        return f"{count} {one}{'s' * (count != 1)}"

    line = (
        f"dropped {n(counts.messages, 'message')} ({n(counts.file_reads, 'file read')}, "
        f"{n(counts.tool_results, 'tool result')})"
    )
    if not restored:
        return f"{line}; no files restored"
    shown = ", ".join(restored[:SHOWN_FILES])
    more = len(restored) - SHOWN_FILES
    return f"{line}; restored {shown}" + (f" and {more} more" if more > 0 else "")


def record_meta(counts: DroppedCounts, restored: Sequence[str]) -> dict[str, Any]:
    """What the summary message's record adds (beside `dropped` and `kept`)."""
    return {"counts": counts.to_json(), "restored": list(restored)}
