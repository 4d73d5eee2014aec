"""Who wrote each memory file, in which session and run, and when (MR5).

Every write wave makes to a memory file is appended to `~/.wave/projects/<id>/memory-provenance.log`
as one line: the file, `written_by` (`user` | `main` | `fork` | `consolidation` | `inbox`), the
run id (an extraction or consolidation run, or the run an accepted inbox item came from), the
session and the time. The newest line for a file answers "who wrote it"; a file changed after
its newest line (an editor, another tool) counts as the user's, at its modification time.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from wave_tui.config.fileio import file_lock
from wave_tui.config.records import record

WrittenBy = Literal["user", "main", "fork", "consolidation", "inbox"]
PROVENANCE_FILE = "memory-provenance.log"  # JSON lines; not `.jsonl`: that names sessions
# A write and the file's mtime are not one instant: a later mtime within this is the same write.
SAME_WRITE_S = 2.0


@record
class Provenance:
    written_by: WrittenBy
    run: str | None
    session: str | None
    written_at: float


def _log(project_dir: Path) -> Path:
    return project_dir / PROVENANCE_FILE


# req: MR5
def record_writes(
    project_dir: Path,
    files: Iterable[Path],
    written_by: WrittenBy,
    *,
    run: str | None = None,
    session: str | None = None,
) -> None:
    """Append one line per written file (blocking; a log that cannot be written is skipped)."""
    now = time.time()
    lines = [
        json.dumps(
            {
                "path": os.path.realpath(path),
                "written_by": written_by,
                "run": run,
                "session": session,
                "at": now,
            }
        )
        + "\n"
        for path in files
    ]
    if not lines:
        return
    log = _log(project_dir)
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        with file_lock(log), log.open("a", encoding="utf-8") as out:
            out.write("".join(lines))
    except OSError:
        pass


# req: MR5
def provenance_of(project_dir: Path, path: Path) -> Provenance | None:
    """The newest recorded write of `path`, or the user's when the file changed since (None:
    the file is not there)."""
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    newest = _newest(project_dir, os.path.realpath(path))
    if newest is None or mtime > newest.written_at + SAME_WRITE_S:
        return Provenance("user", None, None, mtime)
    return newest


def _newest(project_dir: Path, real: str) -> Provenance | None:
    try:
        text = _log(project_dir).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found: Provenance | None = None
    for line in text.splitlines():
        if real not in line:
            continue
        try:
            data: Any = json.loads(line)
        except ValueError:
            continue
        if not isinstance(data, dict) or data.get("path") != real:
            continue
        by = data.get("written_by")
        if by not in ("user", "main", "fork", "consolidation", "inbox"):
            continue
        at = data.get("at")
        found = Provenance(
            by,
            _text_or_none(data.get("run")),
            _text_or_none(data.get("session")),
            float(at) if isinstance(at, (int, float)) else 0.0,
        )
    return found


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
