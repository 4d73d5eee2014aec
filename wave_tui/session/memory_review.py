"""Reviewing what the extraction fork did, for `wave memory runs|revert|inbox|accept|reject|search`
and `list --duplicates` (MX7–MX10).

The front ends' door to `memory.runs`, `memory.inbox`, `memory.search` and `memory.duplicates`:
`cli` formats what these return and never imports `memory` itself (import contract in pyproject).
"""

from __future__ import annotations

from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import MemoryEntry, build_catalog
from wave_tui.memory.duplicates import Duplicate, near_duplicates
from wave_tui.memory.inbox import Inbox, InboxError, PendingWrite
from wave_tui.memory.runs import RevertResult, Run, RunError, list_runs, revert_run
from wave_tui.memory.search import search_entries

ReviewError = (RunError, InboxError)

__all__ = [
    "Duplicate",
    "InboxError",
    "MemoryReview",
    "PendingWrite",
    "RevertResult",
    "ReviewError",
    "Run",
    "RunError",
    "near_duplicates",
]


class MemoryReview:
    """Blocking file work over one project's memory records. Errors raise ReviewError's types."""

    def __init__(self, paths: WavePaths) -> None:
        self.paths = paths
        self._inbox = Inbox(paths.project_dir, paths.memory_dir, paths.team_memory_dir)

    def runs(self) -> list[Run]:
        return list_runs(self.paths.project_dir)

    def revert(self, run_id: str) -> RevertResult:
        return revert_run(self.paths.project_dir, run_id)

    def inbox(self) -> list[PendingWrite]:
        return self._inbox.items()

    def accept(self, item_id: str) -> PendingWrite:
        return self._inbox.accept(item_id)

    def reject(self, item_id: str) -> PendingWrite:
        return self._inbox.reject(item_id)

    def search(self, text: str) -> list[MemoryEntry]:
        return search_entries(build_catalog(self.paths), text)
