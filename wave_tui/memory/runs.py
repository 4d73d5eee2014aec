"""Extraction runs: what each fork run changed, with diffs, and reverting a run (MX7).

Each run's audit record under `~/.wave/projects/<id>/extractions/` carries `changes`: for every
memory file the run wrote (MEMORY.md included) its content before the run's first write and after
its last (`null` = the file did not exist). Reverting puts the `before` back for each file still
as the run left it, and is recorded as a run of its own (`kind: "revert"`), so it can be undone
the same way.

A record is data the fork's folder sits next to, so it is checked before it is acted on: every
path must lie, by its real path, inside the memory folder, and `before`/`after` must be text or
null; a record that fails is refused whole, in one line — a planted record cannot make a revert
create, overwrite or delete `~/.bashrc`.
"""

from __future__ import annotations

import json
import time
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.fileio import atomic_write_text, file_lock
from wave_tui.config.records import record
from wave_tui.files.real_paths import is_strictly_inside

AUDIT_DIR = "extractions"
MEMORY_DIR = "memory"  # the project's memory folder, beside the records (`WavePaths.memory_dir`)
RunKind = Literal["extraction", "revert", "consolidation"]


# req: MX7
class RunError(Exception):
    """A clean, user-facing failure (unknown run id)."""


@record
class FileChange:
    path: Path
    before: str | None
    after: str | None

    def diff(self) -> str:
        before = (self.before or "").splitlines(keepends=True)
        after = (self.after or "").splitlines(keepends=True)
        old = "/dev/null" if self.before is None else f"a/{self.path.name}"
        new = "/dev/null" if self.after is None else f"b/{self.path.name}"
        import difflib  # only when something is compared: not on every start

        return "".join(difflib.unified_diff(before, after, old, new))

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "before": self.before, "after": self.after}


@record
class Run:
    id: str  # the audit file's stem
    kind: RunKind
    started_at: float
    session_id: str
    turn: int | None
    changes: tuple[FileChange, ...]
    error: str | None = None
    reverts: str | None = None  # for a revert: the run it undid
    reverted_by: str | None = None

    @property
    def files(self) -> list[str]:
        return [str(c.path) for c in self.changes]

    def diff(self) -> str:
        return "".join(c.diff() for c in self.changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "time": _iso(self.started_at),
            "session_id": self.session_id,
            "turn": self.turn,
            "files": self.files,
            "diff": self.diff(),
            "error": self.error,
            "reverts": self.reverts,
            "reverted_by": self.reverted_by,
        }


@record(frozen=False)
class ChangeRecorder:
    """Collects a run's changes as it writes: `before` is captured at the first touch only."""

    before: dict[Path, str | None] = field(default_factory=dict)

    def touch(self, path: Path) -> None:
        if path not in self.before:
            self.before[path] = read_or_none(path)

    def changes(self) -> list[dict[str, Any]]:
        out = []
        for path, before in self.before.items():
            after = read_or_none(path)
            if after != before:
                out.append(FileChange(path, before, after).to_json())
        return out


def read_or_none(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def run_id_for(started_at: float, session_id: str) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(started_at))
    return f"{stamp}-{session_id[:8]}-{int(started_at * 1000) % 1000:03d}"


def _parse(path: Path, data: dict[str, Any]) -> Run:
    changes = tuple(
        FileChange(Path(c["path"]), _text(c.get("before")), _text(c.get("after")))
        for c in data.get("changes") or []
        if isinstance(c, dict) and isinstance(c.get("path"), str)
    )
    turn = data.get("turn")
    return Run(
        id=path.stem,
        kind=_kind(data.get("kind")),
        started_at=_number(data.get("started_at")),
        session_id=str(data.get("session_id") or ""),
        turn=turn if isinstance(turn, int) else None,
        changes=changes,
        error=data.get("error") if isinstance(data.get("error"), str) else None,
        reverts=data.get("reverts") if isinstance(data.get("reverts"), str) else None,
        reverted_by=data.get("reverted_by") if isinstance(data.get("reverted_by"), str) else None,
    )


def _kind(value: object) -> RunKind:
    if value == "revert":
        return "revert"
    return "consolidation" if value == "consolidation" else "extraction"


# req: MM5
def record_run(
    project_dir: Path, kind: RunKind, recorder: ChangeRecorder, started_at: float, label: str
) -> Run:
    """Record a run made outside the fork (a consolidation): its diff, revertible."""
    record = {
        "kind": kind,
        "started_at": started_at,
        "finished_at": time.time(),
        "session_id": label,
        "changes": recorder.changes(),
    }
    run_id = run_id_for(started_at, label)
    path = project_dir / AUDIT_DIR / f"{run_id}.json"
    atomic_write_text(path, json.dumps(record, indent=2))
    return _parse(path, record)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def list_runs(project_dir: Path) -> list[Run]:
    """Every recorded run, newest first. Unreadable records are skipped."""
    runs: list[Run] = []
    for path in (project_dir / AUDIT_DIR).glob("*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            runs.append(_parse(path, data))
    runs.sort(key=lambda r: (r.started_at, r.id), reverse=True)
    return runs


def find_run(project_dir: Path, run_id: str) -> Run:
    for run in list_runs(project_dir):
        if run.id == run_id:
            return run
    raise RunError(f"no extraction run with id '{run_id}' (see `wave memory runs`)")


@record
class RevertResult:
    run: Run  # the revert's own record
    restored: list[Path]
    skipped: list[str]  # "path (changed since the run)"


def record_problem(record: dict[str, Any], memory_dir: Path) -> str | None:
    """Why a run record may not be acted on, or None: each change names a path inside the
    memory folder (real path, `..` and links resolved) with text or null before and after."""
    changes = record.get("changes")
    if changes is None:
        return None
    if not isinstance(changes, list):
        return "its changes are not a list"
    for change in changes:
        if not isinstance(change, dict) or not isinstance(change.get("path"), str):
            return "a change names no path"
        path = change["path"]
        if not Path(path).is_absolute() or not is_strictly_inside(path, memory_dir):
            return f"{path!r} is outside the memory folder"
        for key in ("before", "after"):
            if not isinstance(change.get(key), (str, type(None))):
                return f"the {key} of {path!r} is not text"
    return None


# req: FH10
def revert_run(project_dir: Path, run_id: str, session_id: str = "revert") -> RevertResult:
    """Put back what `run_id` changed; files edited since then are left alone and reported."""
    target = find_run(project_dir, run_id)
    try:
        raw = json.loads((project_dir / AUDIT_DIR / f"{target.id}.json").read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise RunError(f"run {run_id}: its record cannot be read ({exc})") from exc
    problem = (
        record_problem(raw, project_dir / MEMORY_DIR)
        if isinstance(raw, dict)
        else "it is not a JSON object"
    )
    if problem is not None:
        raise RunError(f"run {run_id} not reverted: its record was tampered with ({problem})")
    if target.reverted_by is not None:
        raise RunError(f"run {run_id} was already reverted by {target.reverted_by}")
    recorder = ChangeRecorder()
    restored: list[Path] = []
    skipped: list[str] = []
    for change in target.changes:
        with file_lock(change.path):
            current = read_or_none(change.path)
            if current != change.after:
                skipped.append(f"{change.path} (changed since the run)")
                continue
            recorder.touch(change.path)
            if change.before is None:
                change.path.unlink(missing_ok=True)
            else:
                atomic_write_text(change.path, change.before)
            restored.append(change.path)
    if not restored:
        # Nothing was put back: no revert happened, so none is recorded (and the run stays
        # revertible once the files are as it left them).
        left = "; ".join(skipped) or "it changed no file"
        raise RunError(f"run {run_id} not reverted: nothing to put back ({left})")
    started = time.time()
    record = {
        "kind": "revert",
        "started_at": started,
        "finished_at": time.time(),
        "session_id": session_id,
        "reverts": run_id,
        "changes": recorder.changes(),
        "skipped": skipped,
    }
    revert_id = run_id_for(started, session_id)
    folder = project_dir / AUDIT_DIR
    atomic_write_text(folder / f"{revert_id}.json", json.dumps(record, indent=2))
    _mark_reverted(folder / f"{run_id}.json", revert_id)
    return RevertResult(_parse(folder / f"{revert_id}.json", record), restored, skipped)


def _mark_reverted(path: Path, revert_id: str) -> None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(data, dict):
        data["reverted_by"] = revert_id
        atomic_write_text(path, json.dumps(data, indent=2))
