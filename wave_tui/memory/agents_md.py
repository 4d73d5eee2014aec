"""Where manual memory (AGENTS.md) lives, and reading it without ever failing (M1, M2, M5, M6).

A folder's memory file is its `AGENTS.md`, else its `CLAUDE.md`, so a team's existing Claude Code
files work without conversion.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.memory.decoding import decode_memory_bytes

MEMORY_FILENAMES = ("AGENTS.md", "CLAUDE.md")  # first existing one wins (D6)
# Claude Code also keeps a folder's memory in `.claude/CLAUDE.md`, used when neither name exists.
CLAUDE_DIR_MEMORY = Path(".claude") / "CLAUDE.md"  # req: MX5
# Private notes next to the shared file (kept out of git by convention), loaded after it.
LOCAL_MEMORY_FILENAMES = ("AGENTS.local.md", "CLAUDE.local.md")  # req: MX5

Warn = Callable[[str], None]

_log = logging.getLogger(__name__)


def default_warn(message: str) -> None:
    _log.warning("%s", message)


def _first_file(folder: Path, names: tuple[str | Path, ...]) -> Path | None:
    for name in names:
        candidate = folder / name
        try:
            if candidate.is_file():
                return candidate
        except OSError:
            continue
    return None


# req: D6
def folder_memory_file(folder: Path) -> Path | None:
    """The folder's AGENTS.md, else CLAUDE.md, else .claude/CLAUDE.md, else None."""
    return _first_file(folder, (*MEMORY_FILENAMES, CLAUDE_DIR_MEMORY))


def folder_local_memory_file(folder: Path) -> Path | None:
    """The folder's private AGENTS.local.md, else CLAUDE.local.md (MX5)."""
    return _first_file(folder, LOCAL_MEMORY_FILENAMES)


def _folders_top_down(top: Path, root: Path) -> list[Path]:
    try:
        rel = root.relative_to(top)
    except ValueError:
        return [root]
    folders = [top]
    current = top
    for part in rel.parts:
        current = current / part
        folders.append(current)
    return folders


# req: M6
def project_memory_files(paths: WavePaths) -> list[Path]:
    """Project memory files, far to near: repository top level down to the project root (M6);
    in each folder its shared file, then its private `*.local.md` (MX5)."""
    root = paths.project_root
    top = paths.repo_top or root
    found: list[Path] = []
    for folder in _folders_top_down(top, root):
        for memory_file in (folder_memory_file(folder), folder_local_memory_file(folder)):
            if memory_file is not None:
                found.append(memory_file)
    return found


def user_memory_file(paths: WavePaths) -> Path:
    """`~/.wave/AGENTS.md` — may not exist yet (created on first write, M5)."""
    return paths.user_agents_md


# req: M5
def read_memory_text(path: Path, warn: Warn | None = None, *, strict: bool = False) -> str | None:
    """The file's text, or None when it is missing or unreadable. Never raises (M5).

    One decoding rule for every memory source (X11, `memory.decoding`): a binary file is skipped
    and reported; bytes that are not UTF-8 are replaced (U+FFFD) and reported through `warn`;
    with `strict` such a file counts as unreadable instead (nested memory skips it, D7).
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        (warn or default_warn)(f"{path}: cannot read ({exc.strerror or exc})")
        return None
    decoded = decode_memory_bytes(data)
    if decoded.problem is None:
        return decoded.text
    if decoded.text is None or strict:
        (warn or default_warn)(f"{path}: {decoded.problem.split(';')[0]}; skipped")
        return None
    (warn or default_warn)(f"{path}: {decoded.problem}")
    return decoded.text
