"""The rows of the resume picker: each session's first prompt, age and size."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wave_tui.agent.command_handling import first_prompt
from wave_tui.agent.session_files import SessionInfo
from wave_tui.config.records import record


@record
class SessionSummary:
    """One row of the resume picker."""

    id: str
    first_prompt: str
    age: str  # "3h ago"
    size_bytes: int
    message_count: int
    current: bool
    name: str | None = None  # /rename's
    project: Path | None = None  # set for a session of another project: the folder it ran in
    last_active: float = 0.0  # epoch seconds: orders every project's sessions together


def session_summaries(
    sessions: Sequence[SessionInfo], current_id: str | None, now: float
) -> list[SessionSummary]:
    """Blocking (reads each transcript's head): call from a thread."""
    rows = []
    for info in sessions:
        try:
            size = info.path.stat().st_size
        except OSError:
            size = 0
        rows.append(
            SessionSummary(
                id=info.id,
                first_prompt=first_prompt(info) or "(no prompt)",
                age=age_text(now - info.last_active),
                size_bytes=size,
                message_count=info.message_count,
                current=info.id == current_id,
                last_active=info.last_active,
            )
        )
    return rows


def age_text(seconds: float) -> str:
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
