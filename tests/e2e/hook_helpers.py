"""Real hook scripts in a temporary project, configured through the settings files."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any


def script(project: Path, name: str, body: str) -> Path:
    """An executable `sh` script in the project's `hooks/` folder."""
    folder = project / "hooks"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def configure(settings_file: Path, event: str, command: str, **extra: Any) -> None:
    """Add one hook (and its matcher group) to a settings file."""
    data = json.loads(settings_file.read_text()) if settings_file.exists() else {}
    matcher = extra.pop("matcher", None)
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    data.setdefault("hooks", {}).setdefault(event, []).append(group)
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(json.dumps(data))


def project_settings(project: Path) -> Path:
    return project / ".wave" / "settings.json"


def contents(body: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in body["messages"]]
