"""The daemon's sessions on disk (`~/.wave/daemon/sessions.json`): what a restarted daemon needs
to bring each one back — its folder, worktree, conversation and permission mode (DM3)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from wave_tui.config.fileio import atomic_write_text
from wave_tui.config.modes import PERMISSION_MODES, PermissionMode
from wave_tui.config.records import record


@record
class SessionRecord:
    id: str  # the daemon's id for the session (what `send`, `wait`, … name)
    workdir: str
    mode: PermissionMode
    conversation: str  # the wave session id whose transcript holds the conversation
    worktree: str | None = None
    # A destroy in progress: finished by the next daemon when this one died halfway.
    destroying: bool = False
    remove_worktree: bool = False


def _record_of(raw: Any) -> SessionRecord | None:
    if not isinstance(raw, dict):
        return None
    try:
        record_ = SessionRecord(
            id=str(raw["id"]),
            workdir=str(raw["workdir"]),
            mode=raw["mode"] if raw.get("mode") in PERMISSION_MODES else "default",
            conversation=str(raw["conversation"]),
            worktree=str(raw["worktree"]) if raw.get("worktree") else None,
            destroying=bool(raw.get("destroying", False)),
            remove_worktree=bool(raw.get("remove_worktree", False)),
        )
    except KeyError:
        return None
    return record_


def load_records(path: Path) -> list[SessionRecord]:
    """The stored sessions; a missing or unreadable file is none (a broken entry is skipped)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries = raw.get("sessions", []) if isinstance(raw, dict) else []
    return [r for r in map(_record_of, entries if isinstance(entries, list) else []) if r]


def has_records(path: Path) -> bool:
    return bool(load_records(path))


def save_records(path: Path, records: list[SessionRecord]) -> None:
    """Replace the file atomically (a daemon killed mid-write leaves the old one)."""
    data = {"sessions": [dataclasses.asdict(r) for r in records]}
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")
