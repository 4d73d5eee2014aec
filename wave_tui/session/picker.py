"""The resume picker's door (U1, UX15): this project's sessions, and switching to one."""

from __future__ import annotations

import asyncio

from wave_tui.agent.sessions import SessionInfo, list_sessions
from wave_tui.session.core import SessionCore
from wave_tui.session.ui_queries import SessionSummary, session_summaries


class SessionPicker:
    def __init__(self, core: SessionCore) -> None:
        self._core = core

    async def sessions(self) -> list[SessionInfo]:
        """This project's sessions, most recently active first."""
        return await asyncio.to_thread(list_sessions, self._core.paths)

    async def summaries(self) -> list[SessionSummary]:
        """The picker's rows: first prompt, age, size, most recent first."""
        service = self._core.service
        current = service.session_id if service is not None else None
        now = self._core.clock().timestamp()
        paths = self._core.paths

        def rows() -> list[SessionSummary]:
            return session_summaries(list_sessions(paths), current, now)

        return await asyncio.to_thread(rows)

    def resume(self, session_id: str) -> None:
        """Switch to another of the project's conversations. Raises FileNotFoundError for an
        unknown id, RuntimeError while a turn runs."""
        self._core.agent().resume(session_id)
        self._core.status_changed()
