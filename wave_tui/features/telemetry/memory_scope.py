"""Which memory a written path is, for the `memory_write` event and the `wave.memory.write`
metric: the auto-memory folder, the user's AGENTS.md and rules, the project's, or none."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from wave_tui.config.paths import WavePaths

MemoryWriteScope = Literal["auto", "user", "project"]
AGENTS_MD = "AGENTS.md"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def memory_scope(path: Path, paths: WavePaths) -> MemoryWriteScope | None:
    """The memory `path` belongs to, or None when it is no memory file."""
    path = Path(path).absolute()
    if _inside(path, paths.memory_dir.absolute()):
        return "auto"
    if path == paths.user_agents_md.absolute() or any(
        _inside(path, d.absolute()) for d in paths.user_rules_dirs
    ):
        return "user"
    if any(_inside(path, d.absolute()) for d in paths.project_rules_dirs):
        return "project"
    root = paths.project_root.absolute()
    if path.name == AGENTS_MD and _inside(path, root):
        return "project"  # the project's AGENTS.md, or a nested one below it
    return None
