"""The session functions: a project's sessions listed, loaded and deleted without an Agent.

They read the same transcripts the app and `wave -p` write (`~/.wave/projects/<project>/`).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from wave_tui.agent.session_files import SessionInfo
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.llm.types import Message


@record
class SessionMetadata:
    """One session: its id, when it started and was last active (epoch seconds), its size."""

    id: str
    created_at: float
    last_active_at: float
    message_count: int
    parent_session_id: str | None
    path: Path


@record
class SessionData:
    metadata: SessionMetadata
    messages: list[Message]


def _paths(workdir: str | os.PathLike[str] | None) -> WavePaths:
    if workdir is not None and not isinstance(workdir, (str, os.PathLike)):
        raise TypeError(f"workdir must be a str or a path, not {type(workdir).__name__}")
    root = Path(workdir).expanduser() if workdir is not None else Path.cwd()
    if not root.is_dir():
        raise ValueError(f"workdir is not a folder: {root}")
    return WavePaths.for_workdir(root.resolve())


def _meta(info: SessionInfo) -> SessionMetadata:
    return SessionMetadata(
        info.id, info.created, info.last_active, info.message_count, info.parent_id, info.path
    )


def _list(paths: WavePaths) -> list[SessionMetadata]:
    from wave_tui.agent.session_files import list_sessions as listed

    return [_meta(info) for info in listed(paths)]


# req: SD7
async def list_sessions(workdir: str | os.PathLike[str] | None = None) -> list[SessionMetadata]:
    """This project's sessions, most recently active first."""
    paths = _paths(workdir)
    return await asyncio.to_thread(_list, paths)


async def get_latest_session(
    workdir: str | os.PathLike[str] | None = None,
) -> SessionMetadata | None:
    """The most recently active session, or None."""
    sessions = await list_sessions(workdir)
    return sessions[0] if sessions else None


def _find(paths: WavePaths, session_id: str) -> SessionMetadata:
    if not isinstance(session_id, str):
        raise TypeError(f"session_id must be a str, not {type(session_id).__name__}")
    for meta in _list(paths):
        if meta.id == session_id:
            return meta
    raise FileNotFoundError(f"no session {session_id!r} for this project")


async def load_session(
    session_id: str, workdir: str | os.PathLike[str] | None = None
) -> SessionData:
    """A session's messages and metadata. Raises FileNotFoundError for an unknown id."""
    from wave_tui.agent.transcript import transcript_for

    paths = _paths(workdir)

    def load() -> SessionData:
        meta = _find(paths, session_id)
        return SessionData(meta, transcript_for(paths, session_id).load())

    return await asyncio.to_thread(load)


async def delete_session(session_id: str, workdir: str | os.PathLike[str] | None = None) -> None:
    """Delete a session's transcript. Raises FileNotFoundError for an unknown id."""
    paths = _paths(workdir)

    def delete() -> None:
        meta = _find(paths, session_id)
        meta.path.unlink()

    await asyncio.to_thread(delete)


def get_session_file_path(session_id: str, workdir: str | os.PathLike[str] | None = None) -> Path:
    """Where the session `session_id` of this project is (or would be) stored: its JSONL
    transcript under `~/.wave/projects/<project>/`."""
    if not isinstance(session_id, str) or not session_id:
        raise ValueError("session_id must be a non-empty str")
    return _paths(workdir).transcript(session_id)
