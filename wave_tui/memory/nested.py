"""Nested memory: the AGENTS.md / CLAUDE.md files between a read file and the project root (D1–D7)."""

from __future__ import annotations

import os
from pathlib import Path

from wave_tui.memory.agents_md import MEMORY_FILENAMES


# req: D7
def _readable_memory_file(folder: Path) -> Path | None:
    """AGENTS.md, else CLAUDE.md (D6); a level whose files cannot be read is skipped (D7)."""
    for name in MEMORY_FILENAMES:
        candidate = folder / name
        try:
            if candidate.is_file() and os.access(candidate, os.R_OK):
                return candidate
        except OSError:
            continue
    return None


# req: D4
# req: D5
def nested_memory_chain(file_path: Path, project_root: Path) -> list[Path]:
    """Memory files for the file's folder and each ancestor strictly below the project root,
    far to near (D4). Files outside the project root give [] (D5)."""
    try:
        root = project_root.resolve()
        target = file_path.resolve()
        rel = target.relative_to(root)
    except (OSError, RuntimeError, ValueError):
        return []
    # Folders strictly below the root that contain the file, nearest last; bounded by the path
    # depth, so the walk terminates whatever the links looked like before resolving.
    folders: list[Path] = []
    current = root
    for part in rel.parts[:-1]:
        current = current / part
        folders.append(current)
    found: list[Path] = []
    seen: set[Path] = set()
    for folder in folders:
        memory_file = _readable_memory_file(folder)
        if memory_file is not None and memory_file not in seen:
            seen.add(memory_file)
            found.append(memory_file)
    return found
