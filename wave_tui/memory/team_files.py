"""Which files of the team memory folder (`.wave/memory/`) may load: those whose real place is
inside that folder, itself inside the project.

The folder is committed with the project, so anyone with a commit can put a link there: a
`MEMORY.md` or a topic file linked to `~/.ssh/id_ed25519` would otherwise be read into every
session's context (and so sent to the model) as the team's memory.
"""

from __future__ import annotations

import os
from pathlib import Path

from wave_tui.config.paths import WavePaths


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


# req: HR9
def team_folder(paths: WavePaths) -> Path | None:
    """The team folder, unless it (or a folder above it) is a link out of the project."""
    folder = paths.team_memory_dir
    real = os.path.realpath(folder)
    if not _inside(real, os.path.realpath(paths.project_root)):
        return None
    return folder


# req: HR9
def inside_team_folder(path: Path | str, folder: Path) -> bool:
    """Whether `path`, links followed, stays inside the team `folder`."""
    return _inside(os.path.realpath(path), os.path.realpath(folder))
