"""One session's file checkpoints on disk: content-addressed blobs and an append-only index.

`checkpoints/<session-id>/blobs/<sha[:2]>/<sha256>` holds each distinct content once (a file edited ten
times in a session costs its distinct versions, not ten copies); `index.jsonl` says, in order,
what a file was before the agent first wrote it in a user turn (`before`: a blob, or `null` for
"did not exist") and what the agent (or a rewind) left it as (`after`). The blob is written and
synced, then its index line appended and synced, before the tool touches the file: a crash at
any point leaves either no record (the file was not touched yet) or a record whose blob is whole.
A torn last index line is skipped when read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from wave_tui.config.fileio import atomic_write_bytes
from wave_tui.config.records import record

RecordKind = Literal["before", "after"]
INDEX_FILE = "index.jsonl"
BLOBS_FOLDER = "blobs"
SESSION_FILE = "session.json"  # the model last used and the session a fork came from
# Past this many bytes of blobs a session keeps no new checkpoints (and says so once).
SESSION_CAP_BYTES = 512 * 1024 * 1024
# A blob's name is its sha256: anything else in an index line (`../../dev/zero`) names no blob.
_SHA256 = re.compile(r"[0-9a-f]{64}")


@record
class CheckpointRecord:
    kind: RecordKind
    path: Path
    blob: str | None  # sha256 of the content, None: the file did not exist
    turn: str = ""  # the id of the user message whose turn wrote the file ("before" only)
    at: float = 0.0
    kept: bool = True  # False: over the session's cap, the content was not kept


def content_sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_state(path: Path) -> bytes | None:
    """A file's bytes, or None when there is no file (a folder counts as no file)."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


class CheckpointStore:
    """The checkpoints of one session. Blocking file work: call it from a thread."""

    def __init__(self, folder: Path, cap_bytes: int = SESSION_CAP_BYTES) -> None:
        self.folder = folder
        self.cap_bytes = cap_bytes
        self._lock = threading.Lock()  # the calls of one tool round may run side by side
        self._size: int | None = None

    @property
    def index_path(self) -> Path:
        return self.folder / INDEX_FILE

    def blob_path(self, sha: str) -> Path:
        # Spread over 256 folders: each atomic write scans its folder for a crashed writer's
        # temp files, which must not cost more as a long session's blobs add up.
        return self.folder / BLOBS_FOLDER / sha[:2] / sha

    def size(self) -> int:
        """Bytes of blobs kept (read once, then counted as they are added)."""
        if self._size is None:
            total = 0
            for root, _dirs, files in os.walk(self.folder / BLOBS_FOLDER):
                for name in files:
                    with contextlib.suppress(OSError):
                        total += os.stat(os.path.join(root, name)).st_size
            self._size = total
        return self._size

    def _keep_blob(self, data: bytes) -> tuple[str, bool]:
        """Store `data` once by its hash; (sha, False) when the cap forbids keeping it."""
        sha = content_sha(data)
        target = self.blob_path(sha)
        if target.is_file():
            return sha, True
        if self.size() + len(data) > self.cap_bytes:
            return sha, False
        atomic_write_bytes(target, data)
        self._size = self.size() + len(data)
        return sha, True

    def record(self, kind: RecordKind, path: Path, data: bytes | None, turn: str = "") -> bool:
        """Keep `data` (the file's bytes, None for none) and append its index line, both
        synced. False when the session's cap stopped the content from being kept."""
        with self._lock:
            sha: str | None = None
            kept = True
            if data is not None and kind == "before":
                sha, kept = self._keep_blob(data)
            elif data is not None:  # what the file became: its hash is all a rewind compares
                sha = content_sha(data)
            self._append_record(kind, path, sha, turn, kept)
            return kept

    def record_written(self, path: Path, sha: str) -> None:
        """What the agent left the file as, by the hash of the bytes its tool wrote (read back
        from the disk later, it could already hold someone else's edit)."""
        with self._lock:
            self._append_record("after", path, sha, "", True)

    def _append_record(
        self, kind: RecordKind, path: Path, sha: str | None, turn: str, kept: bool
    ) -> None:
        line: dict[str, object] = {"kind": kind, "path": str(path), "blob": sha}
        if turn:
            line["turn"] = turn
        if not kept:
            line["kept"] = False
        line["at"] = round(time.time(), 3)
        self._append(json.dumps(line, ensure_ascii=False), kind)

    def _append(self, line: str, kind: RecordKind) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.index_path, "ab") as fh:
            # A torn line (a crash mid-append) must not swallow this one.
            if fh.tell() > 0 and not _ends_with_newline(self.index_path):
                fh.write(b"\n")
            fh.write(line.encode("utf-8") + b"\n")
            fh.flush()
            # A checkpoint must be on disk before the tool writes; what the tool left need not
            # be: lost in a crash, the file counts as the agent's (the checkpoint still wins).
            if kind == "before":
                os.fsync(fh.fileno())

    def records(self) -> list[CheckpointRecord]:
        """Every whole index line, in the order written."""
        try:
            raw = self.index_path.read_bytes()
        except OSError:
            return []
        return list(_parse(raw))

    # req: HR8
    def blob(self, sha: str) -> bytes:
        """Raises OSError when the blob is gone (a damaged store) or `sha` is no sha256 (an
        index edited behind wave's back must not make a rewind read a file of its choosing)."""
        if not _SHA256.fullmatch(sha):
            raise FileNotFoundError(f"not a checkpoint blob: {sha!r}")
        return self.blob_path(sha).read_bytes()


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


def _parse(raw: bytes) -> Iterator[CheckpointRecord]:
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            kind = data["kind"]
            blob = data.get("blob")
            if kind not in ("before", "after") or not (blob is None or isinstance(blob, str)):
                continue
            yield CheckpointRecord(
                kind=kind,
                path=Path(str(data["path"])),
                blob=blob,
                turn=str(data.get("turn") or ""),
                at=float(data.get("at") or 0.0),
                kept=data.get("kept", True) is not False,
            )
        except (ValueError, KeyError, TypeError):
            continue  # a torn or foreign line: the rest of the index still counts


def read_session_meta(folder: Path) -> dict[str, object]:
    try:
        data = json.loads((folder / SESSION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_session_meta(folder: Path, **values: object) -> None:
    """Merge `values` into the session's `session.json` (atomic)."""
    meta = {**read_session_meta(folder), **values}
    atomic_write_bytes(folder / SESSION_FILE, json.dumps(meta, sort_keys=True).encode())
