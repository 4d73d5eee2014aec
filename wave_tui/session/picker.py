"""The resume picker's door (U1, UX15, FH11): this project's sessions (or every project's),
with their names, and switching to one."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from wave_tui.agent.session_files import SessionInfo, list_sessions
from wave_tui.config.paths import WavePaths
from wave_tui.features.rewind.catalog import stored_projects
from wave_tui.features.rewind.names import session_name
from wave_tui.session.core import SessionCore
from wave_tui.session.session_summaries import SessionSummary, session_summaries


def _named(
    paths: WavePaths, current: str | None, now: float, project: Path | None
) -> list[SessionSummary]:
    return [
        replace(row, name=session_name(paths, row.id), project=project)
        for row in session_summaries(list_sessions(paths), current, now)
    ]


class SessionPicker:
    def __init__(self, core: SessionCore) -> None:
        self._core = core

    async def sessions(self) -> list[SessionInfo]:
        """This project's sessions, most recently active first."""
        return await asyncio.to_thread(list_sessions, self._core.paths)

    def _current(self) -> str | None:
        service = self._core.service
        return service.session_id if service is not None else None

    async def summaries(self) -> list[SessionSummary]:
        """The picker's rows: name, first prompt, age, size, most recent first."""
        paths, current, now = self._core.paths, self._current(), self._core.clock().timestamp()
        return await asyncio.to_thread(_named, paths, current, now, None)

    # req: FH11
    async def all_summaries(self) -> list[SessionSummary]:
        """Every project's sessions, most recent first; another project's carry its folder
        (one whose folder is unknown is left out: it could not be opened)."""
        paths, current, now = self._core.paths, self._current(), self._core.clock().timestamp()

        def rows() -> list[SessionSummary]:
            out = _named(paths, current, now, None)
            for project in stored_projects(paths):
                if project.paths.project_id != paths.project_id and project.folder is not None:
                    out += _named(project.paths, current, now, project.folder)
            infos = {r.id: r for r in out}
            return sorted(infos.values(), key=lambda r: r.last_active, reverse=True)

        return await asyncio.to_thread(rows)

    def resume(self, session_id: str) -> None:
        """Switch to another of the project's conversations. Raises FileNotFoundError for an
        unknown id, RuntimeError while a turn runs."""
        self._core.agent().resume(session_id)
        self._core.status_changed()
