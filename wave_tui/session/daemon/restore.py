"""Opening a hosted session: a new one for `create`, or a stored one when the daemon starts
again — its conversation resumed, its worktree re-entered, its permission mode as it was (DM3);
a destroy the last daemon did not finish is finished."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.session.daemon.hosted import HostedSession
from wave_tui.session.daemon.registry import SessionRecord, load_records
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions

if TYPE_CHECKING:
    from wave_tui.session.daemon.server import DaemonServer

ID_BYTES = 4


def new_session_id() -> str:
    return f"d-{secrets.token_hex(ID_BYTES)}"


class OpenError(RuntimeError):
    """A session that cannot be opened: one line for the client."""


# req: DM1
async def open_session(
    daemon: DaemonServer, entry: SessionRecord, *, resume: bool
) -> HostedSession:
    """A hosted session for `entry`, started, in its worktree, registered with the daemon."""
    hosted = HostedSession(entry, daemon.session_changed)
    try:
        session = _started(hosted, resume=resume)
    except FileNotFoundError:
        # A session that never had a turn has no transcript yet: nothing to resume.
        session = _started(hosted, resume=False)
    problem = await session.enter_start_worktree()
    if problem is not None:
        await session.close()
        raise OpenError(problem)
    _keep_mode(session, entry)
    if session.service is not None:
        hosted.entry = _conversation(entry, session.service.session_id)
    hosted.attach(session)
    daemon.sessions[entry.id] = hosted
    daemon.session_changed(hosted)
    return hosted


def _started(hosted: HostedSession, *, resume: bool) -> AgentSession:
    entry = hosted.entry
    options = AgentOptions(
        workdir=Path(entry.workdir),
        permission_mode=entry.mode,
        resume=entry.conversation if resume else None,
        worktree=entry.worktree,
    )
    try:
        session = create_session(options, approver=hosted.approve)
        session.start()
    except FileNotFoundError:
        if resume:
            raise
        raise OpenError(f"cannot start a session in {entry.workdir}") from None
    except (ValueError, OSError) as exc:
        raise OpenError(str(exc) or type(exc).__name__) from exc
    return session


def _keep_mode(session: AgentSession, entry: SessionRecord) -> None:
    """The stored mode wins over what the settings' `defaultMode` would start the session in:
    a restart must not drop a session back to asking (004's approval flood)."""
    if session.service is not None:
        session.service.set_permission_mode(entry.mode)


def _conversation(entry: SessionRecord, conversation: str) -> SessionRecord:
    return dataclasses.replace(entry, conversation=conversation)


# req: DM3
async def restore_sessions(daemon: DaemonServer) -> None:
    """Every stored session back, as it was when the last daemon ended (or was killed)."""
    from wave_tui.session.daemon.handlers import finish_destroy

    records = await asyncio.to_thread(load_records, daemon.paths.daemon_registry)
    for entry in records:
        if entry.destroying:
            await finish_destroy(daemon, entry)
            continue
        try:
            await open_session(daemon, entry, resume=True)
        except OpenError as exc:
            # Kept on disk: a session that cannot open now (its folder is gone for a while)
            # is not silently forgotten; `destroy` removes it.
            hosted = HostedSession(entry, daemon.session_changed)
            hosted.error = f"could not restore: {exc}"
            daemon.sessions[entry.id] = hosted
