"""What the daemon does for each request of a client (`{"op": …}` → an answer object)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wave_tui.config.modes import PERMISSION_MODES, PermissionMode
from wave_tui.session.daemon.hosted import ALL_LINES, HostedSession
from wave_tui.session.daemon.protocol import failure
from wave_tui.session.daemon.registry import SessionRecord
from wave_tui.session.daemon.replies import reply_of
from wave_tui.session.daemon.restore import OpenError, new_session_id, open_session

if TYPE_CHECKING:
    from wave_tui.session.daemon.server import DaemonServer


def _ok(**values: Any) -> dict[str, Any]:
    return {"ok": True, **values}


def _mode(raw: Any) -> PermissionMode | None:
    for mode in PERMISSION_MODES:
        if raw == mode:
            return mode
    return None


async def handle(daemon: DaemonServer, request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    if op == "list":
        return _ok(sessions=[h.snapshot(0) for h in daemon.sessions.values()])
    if op == "create":
        return await _create(daemon, request)
    if op == "stop":
        daemon.stopping.set()
        return _ok()
    hosted = daemon.sessions.get(str(request.get("id", "")))
    if hosted is None:
        return failure(f"no daemon session {request.get('id')!r} (wave daemon list)")
    if op == "status":
        return _ok(session=hosted.snapshot(_lines(request)))
    if op == "wait":
        return await _wait(daemon, hosted, request)
    if op == "destroy":
        return await _destroy(daemon, hosted, request)
    if hosted.session is None:
        return failure(hosted.error or "the session is not open")
    if op == "send":
        text = request.get("text")
        if not isinstance(text, str) or not text.strip():
            return failure("send needs a message")
        hosted.send(text)
        return _ok(session=hosted.snapshot(0))
    if op == "abort":
        hosted.abort()
        return _ok(session=hosted.snapshot(0))
    if op == "respond":
        return await _respond(daemon, hosted, request)
    return failure(f"unknown request {op!r}")


def _lines(request: dict[str, Any]) -> int:
    raw = request.get("lines", 1)
    return raw if isinstance(raw, int) and raw >= 0 else ALL_LINES


async def _create(daemon: DaemonServer, request: dict[str, Any]) -> dict[str, Any]:
    mode = _mode(request.get("mode", "default"))
    if mode is None:
        return failure(f"--mode must be one of {', '.join(PERMISSION_MODES)}")
    workdir = Path(str(request.get("workdir", "")))
    if not workdir.is_absolute() or not await asyncio.to_thread(workdir.is_dir):
        return failure(f"not a folder: {workdir}")
    worktree = request.get("worktree")
    if worktree == "":
        from wave_tui.features.worktrees.git_worktrees import new_name

        worktree = new_name()
    entry = SessionRecord(
        id=new_session_id(),
        workdir=str(workdir),
        mode=mode,
        conversation="",
        worktree=str(worktree) if worktree else None,
    )
    try:
        hosted = await open_session(daemon, entry, resume=False)
    except OpenError as exc:
        return failure(str(exc))
    await daemon.flush()  # a daemon killed right after `create` still brings it back
    return _ok(session=hosted.snapshot(0))


# req: DM1
async def _wait(
    daemon: DaemonServer, hosted: HostedSession, request: dict[str, Any]
) -> dict[str, Any]:
    """Until the session is not busy; `from_busy`: and until what was sent last has had its
    turn (never sent: until a first message has). Destroyed meanwhile: answered, as a failure."""

    def settled() -> bool:
        if hosted.destroyed:
            return True
        if request.get("from_busy") and hosted.done >= hosted.accepted == 0:
            return False
        return hosted.state != "busy"

    hosted.watchers += 1
    try:
        async with daemon.changed:
            await daemon.changed.wait_for(settled)
    finally:
        hosted.watchers -= 1
    if hosted.destroyed:
        return _ok(destroyed=True, session=None)
    return _ok(session=hosted.snapshot(_lines(request)))


async def _respond(
    daemon: DaemonServer, hosted: HostedSession, request: dict[str, Any]
) -> dict[str, Any]:
    mode = None
    if request.get("mode") is not None:
        mode = _mode(request.get("mode"))
        if mode is None:
            return failure(f"--mode must be one of {', '.join(PERMISSION_MODES)}")
    problem = hosted.respond(bool(request.get("allow")), mode, reply_of(request))
    if problem is not None:
        return failure(problem)
    await daemon.flush()  # the new mode is on disk before the client hears it is set
    return _ok(session=hosted.snapshot(0))


# req: DM1
async def _destroy(
    daemon: DaemonServer, hosted: HostedSession, request: dict[str, Any]
) -> dict[str, Any]:
    """Two steps that must both happen: the intent is saved first, so a daemon that dies
    between them finishes the destroy when it starts again (004: a destroy cut halfway)."""
    remove = bool(request.get("remove_worktree"))
    hosted.entry = dataclasses.replace(hosted.entry, destroying=True, remove_worktree=remove)
    daemon.save()
    await daemon.flush()
    await hosted.close()
    problem = await finish_destroy(daemon, hosted.entry)
    if problem is not None:
        return failure(problem)
    return _ok()


async def finish_destroy(daemon: DaemonServer, entry: SessionRecord) -> str | None:
    """Remove the worktree when asked, then forget the session; the problem as one line."""
    problem = None
    if entry.remove_worktree and entry.worktree:
        problem = await asyncio.to_thread(_remove_worktree, Path(entry.workdir), entry.worktree)
    daemon.sessions.pop(entry.id, None)
    daemon.session_changed()
    await daemon.flush()
    return problem


def _remove_worktree(workdir: Path, name: str) -> str | None:
    from wave_tui.features.worktrees import git_worktrees as git

    try:
        root = git.repository_root(workdir)
        path = git.existing_worktree(root, name)
        if path is not None:
            git.remove_worktree(root, path, name)
    except git.WorktreeError as exc:
        return f"the session is gone, its worktree stays: {exc}"
    return None
