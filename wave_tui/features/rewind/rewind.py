"""Rewinding a session to one of its user messages: the files its turns wrote, the conversation.

Code: every file the agent wrote from that message's turn on goes back to what it was before the
first of those writes (a file it created is removed). A file whose content is neither what the
agent (or an earlier rewind) last left nor the state to restore was changed elsewhere: it is
listed, and only put back when the caller says so. Each file is replaced atomically (a link
there is replaced, never written through: `restore_io.py`) and its new state noted, so a rewind
interrupted half-way, run again, skips what is done and ends the same.
Conversation: the transcript is cut just before the message (one atomic replacement), done after
the code, so an interruption before it leaves the message there to rewind to again.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Literal

from wave_tui.agent.attachments import shown_text
from wave_tui.agent.session_files import full_thread, session_chain
from wave_tui.agent.transcript import transcript_for
from wave_tui.config.fileio import atomic_write_bytes
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.rewind.restore_io import current_sha, remove_no_follow, replace_no_follow
from wave_tui.features.rewind.store import (
    CheckpointRecord,
    CheckpointStore,
    content_sha,
)
from wave_tui.llm.types import Message

FileAction = Literal["restore", "remove", "unchanged", "lost"]


class RewindError(Exception):
    """A rewind that cannot be done (a number out of range, a message before a compaction)."""


@record
class RewindPoint:
    """One user message of a session, as `wave sessions show` numbers them (1 = the oldest)."""

    n: int
    message_id: str
    text: str
    at: str  # ISO 8601
    files: tuple[Path, ...]  # the files its turn wrote with Write/Edit


@record
class FileRestore:
    path: Path
    action: FileAction
    blob: str | None  # the content to put back (None: remove the file)
    changed_elsewhere: bool  # neither what the agent left nor the state to restore


def is_user_prompt(message: Message) -> bool:
    return message.role == "user" and not message.is_meta and message.kind == "normal"


def chain_records(
    paths: WavePaths, session_id: str
) -> list[tuple[CheckpointStore, CheckpointRecord]]:
    """The checkpoint records of the session and the ones it was compacted from, in order."""
    out: list[tuple[CheckpointStore, CheckpointRecord]] = []
    for sid in session_chain(paths, session_id):
        store = CheckpointStore(paths.checkpoint_dir(sid))
        out += [(store, r) for r in store.records()]
    return out


# req: RW4
# req: FH10
def rewind_points(paths: WavePaths, session_id: str) -> list[RewindPoint]:
    """The session's user messages, oldest first, each with the files its turn wrote."""
    prompts = [m for m in full_thread(paths, session_id) if is_user_prompt(m)]
    files: dict[str, list[Path]] = {}
    for _, rec in chain_records(paths, session_id):
        if rec.kind == "before" and rec.path not in files.setdefault(rec.turn, []):
            files[rec.turn].append(rec.path)
    return [
        RewindPoint(n, m.id, shown_text(m), m.timestamp, tuple(files.get(m.id, ())))
        for n, m in enumerate(prompts, 1)
    ]


def point(paths: WavePaths, session_id: str, n: int) -> RewindPoint:
    points = rewind_points(paths, session_id)
    if not 1 <= n <= len(points):
        raise RewindError(f"no message {n} in session {session_id} (it has {len(points)})")
    return points[n - 1]


# req: RW3
def plan_code(paths: WavePaths, session_id: str, n: int) -> list[FileRestore]:
    """What a code rewind to message `n` would do to each file written since."""
    points = rewind_points(paths, session_id)
    later = {p.message_id for p in points[n - 1 :]} if 1 <= n <= len(points) else set()
    if not later:
        raise RewindError(f"no message {n} in session {session_id} (it has {len(points)})")
    records = [rec for _, rec in chain_records(paths, session_id)]
    start = next((i for i, r in enumerate(records) if r.kind == "before" and r.turn in later), None)
    if start is None:
        return []
    targets: dict[Path, CheckpointRecord] = {}
    for rec in records[start:]:
        if rec.kind == "before":
            targets.setdefault(rec.path, rec)
    last: dict[Path, CheckpointRecord] = {r.path: r for r in records if r.path in targets}
    plan = []
    for path, target in targets.items():
        current = current_sha(path)
        # The agent's last word on the file: what it (or a rewind) left. When the last record
        # is a checkpoint with no result after it, the write was cut short (a crash, or the tool
        # failed) and what is there now is taken as the agent's: the checkpoint wins.
        final = last[path]
        if current == target.blob:
            action: FileAction = "unchanged"
        elif not target.kept:
            action = "lost"
        else:
            action = "remove" if target.blob is None else "restore"
        elsewhere = action in ("restore", "remove") and (
            (final.kind == "after" and current != final.blob)
            or not _in_project(path, paths.project_root)
        )
        plan.append(FileRestore(path, action, target.blob, elsewhere))
    return plan


def _in_project(path: Path, root: Path) -> bool:
    """Lexically under the project (the index is a file anyone with the user's rights can
    edit): a restore outside it, though the agent may have written there with leave, is asked
    about like a file changed elsewhere, never done unasked."""
    return path.is_absolute() and os.path.normpath(path) == str(path) and root in path.parents


@record
class CodeRewind:
    restored: tuple[Path, ...]
    removed: tuple[Path, ...]
    left_alone: tuple[Path, ...]  # changed elsewhere, and not to be overwritten
    lost: tuple[Path, ...]  # over the checkpoint cap, or a damaged store
    # Of `left_alone`: named outside the project (an edited index), never written whatever
    # the answer to "overwrite?".
    outside: tuple[Path, ...] = ()


# req: RW3
# req: HR8
def apply_code(
    paths: WavePaths,
    session_id: str,
    plan: list[FileRestore],
    overwrite: Callable[[Path], bool],
) -> CodeRewind:
    """Put each file back; one changed elsewhere only when `overwrite(path)` says so; one
    outside the project never (left alone, in `outside`)."""
    store = CheckpointStore(paths.checkpoint_dir(session_id))
    stores = {
        sid: CheckpointStore(paths.checkpoint_dir(sid)) for sid in session_chain(paths, session_id)
    }
    restored: list[Path] = []
    removed: list[Path] = []
    left: list[Path] = []
    lost: list[Path] = []
    outside: list[Path] = []
    for item in plan:
        if item.action == "unchanged":
            continue
        if item.action == "lost":
            lost.append(item.path)
            continue
        if not _in_project(item.path, paths.project_root):
            outside.append(item.path)
            left.append(item.path)
            continue
        if item.changed_elsewhere and not overwrite(item.path):
            left.append(item.path)
            continue
        data = None if item.blob is None else _blob(stores.values(), item.blob)
        if item.blob is not None and data is None:
            lost.append(item.path)
            continue
        try:
            if data is None:
                remove_no_follow(item.path)
            else:
                replace_no_follow(item.path, data)
        except OSError:
            # A folder on its path is a link now (or no folder at all): what is there was
            # changed elsewhere, and is not reached through.
            left.append(item.path)
            continue
        store.record("after", item.path, data)
        (removed if data is None else restored).append(item.path)
    return CodeRewind(tuple(restored), tuple(removed), tuple(left), tuple(lost), tuple(outside))


def _blob(stores: Iterable[CheckpointStore], sha: str) -> bytes | None:
    for store in stores:
        with contextlib.suppress(OSError):
            data = store.blob(sha)
            if content_sha(data) == sha:
                return data
    return None


def _cut(paths: WavePaths, session_id: str, n: int) -> tuple[RewindPoint, bytes]:
    """Message `n` and the transcript's bytes before it. RewindError when the message is in a
    session this one was compacted from (its transcript is not this one's to cut)."""
    target = point(paths, session_id, n)
    lines = transcript_for(paths, session_id).path.read_bytes().split(b"\n")
    for index, line in enumerate(lines):
        if _line_id(line) == target.message_id:
            return target, b"".join(part + b"\n" for part in lines[:index] if part.strip())
    raise RewindError(
        f"message {n} is before a compaction of session {session_id}: "
        "rewind to a later message, or fork the session"
    )


def check_conversation(paths: WavePaths, session_id: str, n: int) -> None:
    """Raises RewindError when the conversation cannot be rewound to message `n`: checked
    before any file is touched, so a rewind of both never stops half-way on it."""
    _cut(paths, session_id, n)


# req: RW2
def rewind_conversation(paths: WavePaths, session_id: str, n: int) -> str:
    """Cut the transcript just before user message `n`; returns that message's text."""
    target, kept = _cut(paths, session_id, n)
    atomic_write_bytes(transcript_for(paths, session_id).path, kept)
    return target.text


def _line_id(line: bytes) -> str | None:
    if not line.strip():
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def epoch(timestamp: str) -> float:
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0
