"""Which sessions a running wave holds: one `running/<pid>.json` per process, naming its session.

A marker whose process is gone is stale and ignored (a wave killed with -9 leaves one behind);
`wave sessions delete` refuses a session a live marker names.
"""

from __future__ import annotations

import contextlib
import json
import os

from wave_tui.config.paths import WavePaths


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


class RunningMarker:
    """This process's marker; `mark(session_id)` whenever the session in use changes."""

    def __init__(self, paths: WavePaths) -> None:
        self._folder = paths.running_dir
        self._path = self._folder / f"{os.getpid()}.json"
        self._session: str | None = None

    def mark(self, session_id: str) -> None:
        """Small and rare (start, resume, /clear, compaction): written in place of a thread."""
        if session_id == self._session:
            return
        self._session = session_id
        with contextlib.suppress(OSError):
            self._folder.mkdir(parents=True, exist_ok=True)
            tmp = self._path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"pid": os.getpid(), "session": session_id}))
            os.replace(tmp, self._path)

    def clear(self) -> None:
        with contextlib.suppress(OSError):
            self._path.unlink()
        self._session = None


def running_sessions(paths: WavePaths) -> dict[str, int]:
    """Session id -> pid of each live wave of this project."""
    out: dict[str, int] = {}
    try:
        entries = list(paths.running_dir.glob("*.json"))
    except OSError:
        return out
    for entry in entries:
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
            pid, session = int(data["pid"]), str(data["session"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _alive(pid):
            out[session] = pid
    return out
