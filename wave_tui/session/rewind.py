"""The rewind's door for the front ends: `/rewind`, `/fork` and `wave sessions …`.

`SessionRewind` (the facade's `session.rewind`) works on the conversation in use, off the event
loop: its user messages newest first, what a code rewind would do, the rewind itself (the code,
then the conversation, which the agent then reloads), the extraction runs made since, a fork.
The module's plain functions are the same operations for `wave sessions` on any session of the
project, no agent needed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.rewind.catalog import (
    OtherProjectSession,
    SessionDetail,
    SessionInUse,
    SessionRow,
    UnknownSession,
    all_session_rows,
    check_session,
    delete_session,
    fork_session,
    runs_since,
    session_detail,
    session_rows,
    stored_projects,
)
from wave_tui.features.rewind.keep import KEPT_NOTE, ConversationRewind, rewind_conversation_kept
from wave_tui.features.rewind.names import set_session_name
from wave_tui.features.rewind.rewind import (
    CodeRewind,
    FileRestore,
    RewindError,
    RewindPoint,
    apply_code,
    check_conversation,
    plan_code,
    point,
    rewind_points,
)
from wave_tui.features.rewind.running import running_sessions
from wave_tui.memory.runs import Run
from wave_tui.session.core import SessionCore
from wave_tui.session.memory_access import MemoryAccess, RevertResult

RewindMode = Literal["both", "conversation", "code"]
BASH_NOTE = "Changes made by Bash commands are not tracked and are not rewound."

__all__ = [
    "BASH_NOTE",
    "KEPT_NOTE",
    "CodeRewind",
    "ConversationRewind",
    "FileRestore",
    "OtherProjectSession",
    "ProjectSessions",
    "RewindError",
    "RewindMode",
    "RewindOutcome",
    "RewindPoint",
    "SessionDetail",
    "SessionInUse",
    "SessionRewind",
    "SessionRow",
    "UnknownSession",
]


@record
class RewindOutcome:
    code: CodeRewind | None
    text: str | None  # the message's text, for the input (a conversation rewind)
    kept_as: str | None = None  # the fork holding the conversation as it was before


def find_session(paths: WavePaths, resume: str | None, continue_last: bool) -> str | None:
    """The session `--resume ID` / `--continue` names (as the agent would restore it)."""
    from wave_tui.agent.session_files import latest_descendant
    from wave_tui.agent.transcript import latest_session_id

    session = resume if resume else (latest_session_id(paths) if continue_last else None)
    if session is None:
        return None
    check_session(paths, session)
    return latest_descendant(paths, session)


# A session id prefix shorter than this is never taken as naming one session.
MIN_ID_PREFIX = 4


# req: FH11
def named_session(rows: list[SessionRow], given: str) -> str | None:
    """The id of the one row `given` names (id, unique id prefix, or name, case aside); None
    for no row; UnknownSession (one line listing them) for several."""
    ids = [row.id for row in rows]
    if given in ids:
        return given
    fits = [i for i in ids if i.startswith(given)] if len(given) >= MIN_ID_PREFIX else []
    if len(fits) == 1:
        return fits[0]
    if len(fits) > 1:
        shown = ", ".join(f[: len(given) + 4] for f in fits[:5])
        raise UnknownSession(f"{given!r} names {len(fits)} sessions ({shown}): give more of it")
    wanted = " ".join(given.split()).casefold()
    named = [row for row in rows if row.name and row.name.casefold() == wanted]
    if len(named) > 1:
        shown = ", ".join(f"{r.id[:8]} ({r.last_active})" for r in named)
        raise UnknownSession(f"{given!r} names {len(named)} sessions: {shown}: give an id")
    return named[0].id if named else None


class ProjectSessions:
    """`wave sessions …` on any session of the project: blocking file work, no agent."""

    def __init__(self, paths: WavePaths) -> None:
        self.paths = paths

    def rows(self) -> list[SessionRow]:
        return session_rows(self.paths)

    def all_rows(self) -> list[SessionRow]:
        """Every project's sessions, with the project's folder."""
        return all_session_rows(self.paths)

    def rename(self, session_id: str, name: str) -> str:
        """Name the session (the name as kept); ValueError for an empty name."""
        return set_session_name(self.paths, session_id, name)

    def detail(self, session_id: str) -> SessionDetail:
        return session_detail(self.paths, session_id)

    def check(self, session_id: str) -> None:
        check_session(self.paths, session_id)

    # req: FH10
    # req: FH11
    def resolve(self, given: str) -> str:
        """The session `given` names: its full id, a prefix of one (the short ids lists and
        pickers show) or its name; one that fits several is one line of UnknownSession, one
        of another project OtherProjectSession, one that fits none UnknownSession."""
        found = named_session(self.rows(), given)
        if found is not None:
            return found
        for project in stored_projects(self.paths):
            if project.paths.project_id == self.paths.project_id:
                continue
            elsewhere = named_session(session_rows(project.paths), given)
            if elsewhere is not None:
                raise OtherProjectSession(elsewhere, project.label, project.folder)
        check_session(self.paths, given)  # the usual one-line refusal
        return given

    def in_use(self, session_id: str) -> bool:
        return session_id in running_sessions(self.paths)

    def delete(self, session_id: str) -> None:
        delete_session(self.paths, session_id)

    def fork(self, session_id: str) -> str:
        return fork_session(self.paths, session_id)

    def find(self, resume: str | None, continue_last: bool) -> str | None:
        return find_session(self.paths, resume, continue_last)

    def point(self, session_id: str, n: int) -> RewindPoint:
        return point(self.paths, session_id, n)

    def plan(self, session_id: str, n: int) -> list[FileRestore]:
        return plan_code(self.paths, session_id, n)

    def apply_code(
        self, session_id: str, plan: list[FileRestore], overwrite: Callable[[Path], bool]
    ) -> CodeRewind:
        return apply_code(self.paths, session_id, plan, overwrite)

    def check_conversation(self, session_id: str, n: int) -> None:
        check_conversation(self.paths, session_id, n)

    def rewind_conversation(self, session_id: str, n: int) -> ConversationRewind:
        return rewind_conversation_kept(self.paths, session_id, n)

    def runs_since(self, session_id: str, target: RewindPoint) -> list[Run]:
        return runs_since(self.paths, session_id, target)

    def revert(self, run_id: str) -> RevertResult:
        from wave_tui.config.clock import system_clock

        return MemoryAccess(self.paths, system_clock).revert(run_id)


class SessionRewind:
    def __init__(self, core: SessionCore) -> None:
        self._core = core

    def _session(self) -> str:
        return self._core.agent().session_id

    async def points(self) -> list[RewindPoint]:
        """This session's user messages, newest first."""
        paths, sid = self._core.paths, self._session()
        return list(reversed(await asyncio.to_thread(rewind_points, paths, sid)))

    async def plan(self, n: int) -> list[FileRestore]:
        """What a code rewind to message `n` would do (the files changed elsewhere marked)."""
        return await asyncio.to_thread(plan_code, self._core.paths, self._session(), n)

    async def runs_since(self, n: int) -> list[Run]:
        paths, sid = self._core.paths, self._session()

        def runs() -> list[Run]:
            return runs_since(paths, sid, point(paths, sid, n))

        return await asyncio.to_thread(runs)

    # req: RW2
    async def rewind(self, n: int, mode: RewindMode, overwrite: frozenset[Path]) -> RewindOutcome:
        """Files first, then the conversation (reloaded by the agent). RuntimeError while a
        turn runs; RewindError for a message out of range."""
        agent = self._core.agent()
        if agent.busy:
            raise RuntimeError("a turn is running: rewind when it has finished")
        paths, sid = self._core.paths, agent.session_id
        code: CodeRewind | None = None
        kept: ConversationRewind | None = None
        if mode in ("both", "conversation"):
            await asyncio.to_thread(check_conversation, paths, sid, n)
        if mode in ("both", "code"):
            allowed: Callable[[Path], bool] = overwrite.__contains__

            def files() -> CodeRewind:
                return apply_code(paths, sid, plan_code(paths, sid, n), allowed)

            code = await asyncio.to_thread(files)
        if mode in ("both", "conversation"):
            kept = await asyncio.to_thread(rewind_conversation_kept, paths, sid, n)
            agent.resume(sid)
        self._core.status_changed()
        if kept is None:
            return RewindOutcome(code, None)
        return RewindOutcome(code, kept.text, kept.kept_as)

    async def revert_runs(self, run_ids: list[str]) -> list[RevertResult]:
        access = MemoryAccess(self._core.paths, self._core.clock, self._core.emit)
        return [await asyncio.to_thread(access.revert, run_id) for run_id in run_ids]

    # req: RW4
    async def fork(self) -> str:
        """Continue in a copy of this conversation; the original stays as it is."""
        agent = self._core.agent()
        new_id = await asyncio.to_thread(fork_session, self._core.paths, agent.session_id)
        agent.resume(new_id)
        self._core.status_changed()
        return new_id
