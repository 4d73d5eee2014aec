"""The project's sessions as `wave sessions` shows them: list, show, fork, delete, and the
extraction runs a rewound conversation may take back.

A fork is a byte copy of the transcript (and its checkpoints) under a new id; the original is not
touched. Where a session came from (the session it was compacted from, or forked from) is its
`parent`. Deleting a session removes its transcript, its subagent transcripts and its
checkpoints, and is refused while a running wave holds it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from wave_tui.agent.command_handling import first_prompt
from wave_tui.agent.compaction import META_COMPACTION
from wave_tui.agent.compaction_record import DroppedCounts, dropped_line
from wave_tui.agent.session_files import SUBAGENTS_FOLDER, full_thread, list_sessions, session_chain
from wave_tui.agent.transcript import new_session_id, transcript_for
from wave_tui.config.paths import WavePaths, safe_component
from wave_tui.config.records import record
from wave_tui.features.rewind.names import decoded_project_root, session_cwd, session_name
from wave_tui.features.rewind.rewind import RewindPoint, epoch, rewind_points
from wave_tui.features.rewind.running import running_sessions
from wave_tui.features.rewind.store import read_session_meta, write_session_meta
from wave_tui.llm.types import Message
from wave_tui.memory.runs import Run, list_runs

FORKED_FROM = "forked_from"
SHA_HEX_LEN = 64  # a blob's name: its sha256


class UnknownSession(LookupError):
    """No transcript of this project has that id."""


class OtherProjectSession(UnknownSession):
    """The id names a session of another project (`folder`: where it ran, when known)."""

    def __init__(self, session_id: str, project: str, folder: Path | None) -> None:
        where = f"cd {folder} && wave --resume {session_id}" if folder else "run wave there"
        super().__init__(f"session {session_id} belongs to project {project} ({where})")
        self.session_id = session_id
        self.folder = folder


class SessionInUse(RuntimeError):
    """A running wave holds the session."""


@record
class SessionRow:
    id: str
    created: str
    last_active: str
    messages: int
    model: str | None
    first_prompt: str
    parent: str | None
    name: str | None = None
    project: str | None = None  # the project's folder: only in every project's list

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.id,
            "name": self.name,
            "created": self.created,
            "last_active": self.last_active,
            "messages": self.messages,
            "model": self.model,
            "first_prompt": self.first_prompt,
            "parent": self.parent,
        }
        if self.project is not None:
            out["project"] = self.project
        return out


@record
class SessionDetail:
    id: str
    messages: tuple[RewindPoint, ...]
    compactions: tuple[dict[str, object], ...]
    subagents: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "messages": [{"n": p.n, "text": p.text, "at": p.at} for p in self.messages],
            "compactions": list(self.compactions),
            "subagents": list(self.subagents),
        }


def iso(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def check_session(paths: WavePaths, session_id: str) -> None:
    """Raises UnknownSession (one line) for an id with no transcript here."""
    try:
        exists = transcript_for(paths, session_id).path.is_file()
    except ValueError:
        exists = False
    if not exists or safe_component(session_id) != session_id:
        raise UnknownSession(f"no session {session_id!r} for this project")


# req: RW4
# req: FH11
def session_rows(paths: WavePaths) -> list[SessionRow]:
    rows = []
    for info in list_sessions(paths):
        meta = read_session_meta(paths.checkpoint_dir(info.id))
        model, forked = meta.get("model"), meta.get(FORKED_FROM)
        rows.append(
            SessionRow(
                id=info.id,
                created=iso(info.created),
                last_active=iso(info.last_active),
                messages=info.message_count,
                model=model if isinstance(model, str) else None,
                first_prompt=first_prompt(info),
                parent=info.parent_id or (forked if isinstance(forked, str) else None),
                name=session_name(paths, info.id),
            )
        )
    return rows


@record
class StoredProject:
    paths: WavePaths
    folder: Path | None  # where its sessions ran, when known

    @property
    def label(self) -> str:
        return str(self.folder) if self.folder else self.paths.project_id


def stored_projects(home: WavePaths) -> list[StoredProject]:
    """Every project with sessions under `~/.wave/projects/` (this one included)."""
    try:
        folders = sorted(p for p in home.projects_dir.iterdir() if p.is_dir())
    except OSError:
        return []
    projects = []
    for folder in folders:
        paths = WavePaths.for_stored_project(folder.name, None, home.home)
        infos = list_sessions(paths)
        if not infos:
            continue
        root = next((c for i in infos if (c := session_cwd(paths, i.id))), None)
        root = root or decoded_project_root(folder.name)
        projects.append(
            StoredProject(WavePaths.for_stored_project(folder.name, root, home.home), root)
        )
    return projects


# req: FH11
def all_session_rows(home: WavePaths) -> list[SessionRow]:
    """Every project's sessions, each with its project's folder, most recently active first."""
    rows = [
        replace(row, project=project.label)
        for project in stored_projects(home)
        for row in session_rows(project.paths)
    ]
    return sorted(rows, key=lambda r: r.last_active, reverse=True)


# req: MR4
def compaction_record(compress: Message) -> dict[str, object]:
    """What a compaction dropped (`dropped`: messages, file reads, tool results) and the files
    its restoration brought back (`restored`), from its summary message's record."""
    saved = compress.meta.get(META_COMPACTION)
    counts = DroppedCounts.from_json(saved.get("counts")) if isinstance(saved, dict) else None
    if counts is None or not isinstance(saved, dict):
        return {}
    restored = [str(path) for path in saved.get("restored") or []]
    return {
        "dropped": counts.to_json(),
        "restored": restored,
        "line": dropped_line(counts, restored),
    }


# req: RW4
def session_detail(paths: WavePaths, session_id: str) -> SessionDetail:
    check_session(paths, session_id)
    compactions: tuple[dict[str, object], ...] = tuple(
        {"at": m.timestamp, "summary": " ".join(m.content.split())[:80], **compaction_record(m)}
        for m in full_thread(paths, session_id)
        if m.kind == "compress"
    )
    subagents: list[str] = []
    for sid in session_chain(paths, session_id):
        folder = paths.project_dir / sid / SUBAGENTS_FOLDER
        with contextlib.suppress(OSError):
            subagents += sorted(p.stem for p in folder.glob("*.jsonl"))
    return SessionDetail(
        session_id, tuple(rewind_points(paths, session_id)), compactions, tuple(subagents)
    )


# req: RW4
# req: RW5
def fork_session(paths: WavePaths, session_id: str) -> str:
    """A new session continuing from a copy of `session_id` (the original is only read)."""
    check_session(paths, session_id)
    new_id = new_session_id()
    source = transcript_for(paths, session_id).path
    target = transcript_for(paths, new_id).path
    tmp = target.with_name(f".{target.name}.tmp")
    shutil.copyfile(source, tmp)  # never a link: the fork's appends must not reach the original
    os.replace(tmp, target)
    checkpoints = paths.checkpoint_dir(session_id)
    if checkpoints.is_dir():
        shutil.copytree(checkpoints, paths.checkpoint_dir(new_id), copy_function=_link_or_copy)
    write_session_meta(paths.checkpoint_dir(new_id), **{FORKED_FROM: session_id})
    return new_id


def _link_or_copy(src: str, dst: str) -> None:
    """Blobs are never changed in place: one on disk serves both sessions. The index is
    appended to: a link would send each session's later checkpoints into the other's."""
    name = os.path.basename(src)
    if len(name) == SHA_HEX_LEN and all(c in "0123456789abcdef" for c in name):
        with contextlib.suppress(OSError):
            os.link(src, dst)
            return
    shutil.copy2(src, dst)


# req: RW8
def delete_session(paths: WavePaths, session_id: str) -> list[Path]:
    """Remove the transcript, its subagent transcripts and its checkpoints."""
    check_session(paths, session_id)
    pid = running_sessions(paths).get(session_id)
    if pid is not None:
        raise SessionInUse(f"session {session_id} is in use by a running wave (pid {pid})")
    transcript = transcript_for(paths, session_id)
    removed = []
    for path in (transcript.path, transcript.corrupt_path):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path)
    for folder in (paths.project_dir / session_id, paths.checkpoint_dir(session_id)):
        if folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


# req: RW6
def runs_since(paths: WavePaths, session_id: str, target: RewindPoint) -> list[Run]:
    """Extraction runs of this session (or the ones it was compacted from) made from that
    message's turn on and not reverted yet, newest first."""
    chain = set(session_chain(paths, session_id))
    since = epoch(target.at)
    return [
        run
        for run in list_runs(paths.project_dir)
        if run.kind == "extraction"
        and run.session_id in chain
        and run.started_at >= since
        and run.reverted_by is None
    ]
