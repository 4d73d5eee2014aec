"""Where manual memory (AGENTS.md) lives, and reading it without ever failing (M1, M2, M5, M6).

A folder's memory file is its `AGENTS.md`, else its `CLAUDE.md`, so a team's existing Claude Code
files work without conversion.
"""

from __future__ import annotations

import logging
import os
import stat
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


def _first_file(
    folder: Path, names: tuple[str | Path, ...], warn: Warn | None = None
) -> Path | None:
    """The first of `names` in `folder` that is a file; one that is a folder is skipped and
    reported through `warn` (M5)."""
    for name in names:
        candidate = folder / name
        try:
            mode = os.stat(candidate).st_mode
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(mode):
            return candidate
        if warn is not None and stat.S_ISDIR(mode):
            warn(f"{candidate} is a folder, not a file; skipped")
    return None


# req: D6
def folder_memory_file(folder: Path, warn: Warn | None = None) -> Path | None:
    """The folder's AGENTS.md, else CLAUDE.md, else .claude/CLAUDE.md, else None."""
    return _first_file(folder, (*MEMORY_FILENAMES, CLAUDE_DIR_MEMORY), warn)


def folder_local_memory_file(folder: Path, warn: Warn | None = None) -> Path | None:
    """The folder's private AGENTS.local.md, else CLAUDE.local.md (MX5)."""
    return _first_file(folder, LOCAL_MEMORY_FILENAMES, warn)


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
def project_memory_files(paths: WavePaths, warn: Warn | None = None) -> list[Path]:
    """Project memory files, far to near: repository top level down to the project root (M6);
    in each folder its shared file, then its private `*.local.md` (MX5). A memory name that is
    a folder is skipped, and told through `warn` when given."""
    root = paths.project_root
    top = paths.repo_top or root
    found: list[Path] = []
    for folder in _folders_top_down(top, root):
        shared = folder_memory_file(folder, warn)
        for memory_file in (shared, folder_local_memory_file(folder, warn)):
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
    except IsADirectoryError:
        (warn or default_warn)(f"{path} is a folder, not a file; skipped")
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
