"""Session files beyond one transcript: compaction chains, listing, and expiry cleanup.

A compacted session continues in a new transcript whose FIRST line is the compress block, with
`meta.parentSessionId` naming the previous session — the "one JSON message per line" contract holds
and the link travels with the summary it explains.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import field
from datetime import datetime
from pathlib import Path

from wave_tui.agent.transcript import Transcript, new_session_id, session_files, transcript_for
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.llm.types import Message

PARENT_KEY = "parentSessionId"
SUBAGENT_PREFIXES = ("subagent-", "subagent_")
SECONDS_PER_DAY = 86_400
MEMORY_FOLDER = "memory"  # auto memory: never entered by cleanup
SUBAGENTS_FOLDER = "subagents"  # `<session-id>/subagents/<agent-id>.jsonl` (config/paths.py)
CHECKPOINTS_FOLDER = "checkpoints"  # `checkpoints/<session-id>/` (config/paths.py)


# -- chains -------------------------------------------------------------------------------------
def _first_record(path: Path) -> dict[str, object] | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    record = json.loads(line)
                    return record if isinstance(record, dict) else None
    except (OSError, ValueError):
        return None
    return None


def parent_of(transcript: Transcript) -> str | None:
    """The session this one was compacted from, read from the first line only."""
    record = _first_record(transcript.path)
    if record is None or record.get("kind") != "compress":
        return None
    meta = record.get("meta")
    parent = meta.get(PARENT_KEY) if isinstance(meta, dict) else None
    return parent if isinstance(parent, str) and parent else None


def session_chain(paths: WavePaths, session_id: str) -> list[str]:
    """Session ids from the oldest ancestor still on disk to `session_id`; stops on a cycle."""
    chain = [session_id]
    seen = {session_id}
    current = session_id
    while True:
        try:
            parent = parent_of(transcript_for(paths, current))
        except ValueError:
            break
        if parent is None or parent in seen:
            break
        try:
            if not transcript_for(paths, parent).path.is_file():
                break  # expired by cleanup: the chain starts here
        except ValueError:
            break
        chain.append(parent)
        seen.add(parent)
        current = parent
    chain.reverse()
    return chain


def full_thread(paths: WavePaths, session_id: str) -> list[Message]:
    """Every message across the chain, oldest first, compress blocks included.

    The rounds kept verbatim by a compaction are copied into the child transcript; each message
    appears once, at its first (oldest) position.
    """
    thread: list[Message] = []
    seen: set[str] = set()
    for sid in session_chain(paths, session_id):
        for message in transcript_for(paths, sid).load():
            if message.id in seen:
                continue
            seen.add(message.id)
            thread.append(message)
    return thread


def with_parent(compress: Message, parent_id: str) -> Message:
    return compress.model_copy(update={"meta": {**compress.meta, PARENT_KEY: parent_id}})


# req: CP2
def start_child_session(
    paths: WavePaths, parent_id: str, new_messages: Sequence[Message]
) -> Transcript:
    """Write a compaction result (`[compress, *kept]`) as a new transcript linked to `parent_id`."""
    if not new_messages or new_messages[0].kind != "compress":
        raise ValueError("a child session must start with a compress block")
    transcript = transcript_for(paths, new_session_id())
    transcript.append(with_parent(new_messages[0], parent_id))
    for message in new_messages[1:]:
        transcript.append(message)
    return transcript


# req: CP2
def latest_descendant(paths: WavePaths, session_id: str) -> str:
    """The newest session down the compaction chain that starts at `session_id` (cycle-safe)."""
    children: dict[str, list[Path]] = {}
    for path in session_files(paths):
        parent = parent_of(Transcript(path))
        if parent:
            children.setdefault(parent, []).append(path)
    seen = {session_id}
    current = session_id
    while current in children:
        newest = max(children[current], key=lambda p: p.stat().st_mtime_ns).stem
        if newest in seen:
            break
        seen.add(newest)
        current = newest
    return current


# -- listing ------------------------------------------------------------------------------------
@record
class SessionInfo:
    id: str
    path: Path
    created: float  # epoch seconds of the first message (file mtime when unknown)
    last_active: float  # file mtime: transcripts are append-only
    message_count: int
    parent_id: str | None


def _is_subagent(path: Path) -> bool:
    return path.name.startswith(SUBAGENT_PREFIXES)


def _epoch(timestamp: object) -> float | None:
    if not isinstance(timestamp, str):
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _session_info(path: Path) -> SessionInfo | None:
    try:
        mtime = path.stat().st_mtime
        count = sum(1 for line in path.read_bytes().splitlines() if line.strip())
    except OSError:
        return None
    first = _first_record(path)
    created = _epoch(first.get("timestamp")) if first else None
    return SessionInfo(
        id=path.stem,
        path=path,
        created=created if created is not None else mtime,
        last_active=mtime,
        message_count=count,
        parent_id=parent_of(Transcript(path)),
    )


def list_sessions(paths: WavePaths) -> list[SessionInfo]:
    """This project's main-agent sessions, most recently active first."""
    infos = (_session_info(p) for p in session_files(paths) if not _is_subagent(p))
    return [info for info in infos if info is not None]


# -- expiry -------------------------------------------------------------------------------------
@record(frozen=False)
class CleanupReport:
    deleted: list[Path] = field(default_factory=list)
    removed_dirs: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


# req: CP6
def cleanup_old_sessions(
    paths: WavePaths, period_days: int, now: float, keep: frozenset[Path] = frozenset()
) -> CleanupReport:
    """Delete transcripts under `~/.wave/projects/*/` idle for longer than `period_days`.

    The candidates are top-level `*.jsonl` files and subagent transcripts
    (`<session-id>/subagents/*.jsonl`, each by its own age), and checkpoint folders
    (`checkpoints/<session-id>/`, by their newest file); `memory/` is never entered;
    transcripts in `keep` (the session being resumed, and its chain) and their subagents' are
    never deleted, however old. Pure filesystem work with no shared state: safe to run in a
    background thread. Never raises.
    """
    report = CleanupReport()
    if period_days <= 0:
        return report
    cutoff = now - period_days * SECONDS_PER_DAY
    try:
        projects = [p for p in paths.projects_dir.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return report
    for project in projects:
        _cleanup_project(project, cutoff, report, keep)
    return report


def _cleanup_project(
    project: Path, cutoff: float, report: CleanupReport, keep: frozenset[Path]
) -> None:
    try:
        entries = list(os.scandir(project))
    except OSError as exc:
        report.errors.append(f"{project}: {exc}")
        return
    deleted_any = False
    for entry in entries:
        if entry.name.endswith(".jsonl"):
            if Path(entry.path) not in keep:
                deleted_any |= _delete_if_expired(entry, cutoff, report)
        elif entry.name == CHECKPOINTS_FOLDER:
            _cleanup_checkpoints(Path(entry.path), cutoff, report, keep)
        elif entry.name != MEMORY_FOLDER and project / f"{entry.name}.jsonl" not in keep:
            deleted_any |= _cleanup_subagents(Path(entry.path), cutoff, report)
    if deleted_any:
        # rmdir refuses a non-empty folder, which is exactly the "memory/ stays" rule.
        with contextlib.suppress(OSError):
            project.rmdir()
            report.removed_dirs.append(project)


def _delete_if_expired(entry: os.DirEntry[str], cutoff: float, report: CleanupReport) -> bool:
    """Delete one regular file last written before `cutoff`; True when it was deleted."""
    try:
        if not entry.is_file(follow_symlinks=False):
            return False
        if entry.stat(follow_symlinks=False).st_mtime >= cutoff:
            return False
        os.unlink(entry.path)
    except FileNotFoundError:
        return False  # another process cleaned it up first
    except OSError as exc:
        report.errors.append(f"{entry.path}: {exc}")
        return False
    report.deleted.append(Path(entry.path))
    return True


# req: CP6
def _cleanup_subagents(session_dir: Path, cutoff: float, report: CleanupReport) -> bool:
    """Expired `<session-id>/subagents/*.jsonl`; the folders go too once nothing else is in them."""
    subagents = session_dir / SUBAGENTS_FOLDER
    try:
        if session_dir.is_symlink() or subagents.is_symlink():
            return False  # only folders wave made are cleaned, never what a link points at
        entries = list(os.scandir(subagents))
    except OSError:  # no subagents here (a file, or a folder of something else): not ours
        return False
    deleted_any = False
    for entry in entries:
        if entry.name.endswith(".jsonl"):
            deleted_any |= _delete_if_expired(entry, cutoff, report)
    if deleted_any:
        for folder in (subagents, session_dir):
            try:
                folder.rmdir()  # refuses a folder that still holds anything
            except OSError:
                break
            report.removed_dirs.append(folder)
    return deleted_any


# req: RW7
def _cleanup_checkpoints(
    folder: Path, cutoff: float, report: CleanupReport, keep: frozenset[Path]
) -> None:
    """A session's checkpoints go when nothing in them was written since `cutoff` (its
    transcript is judged on its own); a kept session's never do."""
    kept = {path.stem for path in keep}
    try:
        if folder.is_symlink():
            return
        sessions = [e for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for entry in sessions:
        if entry.name in kept or _newest_mtime(Path(entry.path)) >= cutoff:
            continue
        try:
            shutil.rmtree(entry.path)
        except OSError as exc:
            report.errors.append(f"{entry.path}: {exc}")
            continue
        report.removed_dirs.append(Path(entry.path))


def _newest_mtime(folder: Path) -> float:
    newest = 0.0
    for root, dirs, files in os.walk(folder):
        for name in [*files, *dirs]:
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
    with contextlib.suppress(OSError):
        newest = max(newest, folder.stat().st_mtime)
    return newest
