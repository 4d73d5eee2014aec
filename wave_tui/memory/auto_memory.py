"""The project's auto-memory directory: where it is, what is inside it, safe writes (A1, A4, X2)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from wave_tui.config.fileio import atomic_write_text, file_lock, locked_update
from wave_tui.config.paths import MEMORY_INDEX_FILENAME, OwnedPathError, WavePaths, display_path
from wave_tui.files.real_paths import is_strictly_inside, real_path

INDEX_FILENAME = MEMORY_INDEX_FILENAME


# req: A1
class AutoMemoryDir:
    """`~/.wave/projects/<project-id>/memory/` for one project."""

    def __init__(self, paths: WavePaths) -> None:
        self._paths = paths
        self.path: Path = paths.memory_dir.resolve()

    @property
    def index_path(self) -> Path:
        return self.path / INDEX_FILENAME

    def ensure(self) -> None:
        """Create the directory and an empty MEMORY.md. Call only while auto memory is on (S5).

        Raises OwnedPathError (one line naming the path) when the folder is a file, MEMORY.md
        is a folder, or either cannot be made: the caller turns auto memory off (M5)."""
        problem = self.problem()
        if problem is not None:
            raise OwnedPathError(problem)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            with (
                contextlib.suppress(FileExistsError),
                open(self.index_path, "x", encoding="utf-8"),
            ):
                pass
        except OSError as exc:
            where = display_path(
                Path(exc.filename or self.path), self._paths.project_root, self._paths.home
            )
            raise OwnedPathError(f"{where}: cannot create ({exc.strerror or exc})") from exc

    # req: M5
    def problem(self) -> str | None:
        """One line when the memory folder or its MEMORY.md has the wrong type, else None."""
        folder = self._paths.memory_dir
        if os.path.lexists(folder) and not folder.is_dir():
            return f"{display_path(folder, self._paths.project_root, self._paths.home)} is a file, not the auto-memory folder"
        if self.index_path.is_dir():
            return f"{display_path(self._paths.memory_index, self._paths.project_root, self._paths.home)} is a folder, not a file"
        return None

    # req: F6
    def contains(self, path: object) -> bool:
        """True only when the real path of `path` lies strictly inside the real memory dir.

        Relative paths are taken against the process's current directory; callers with a work
        dir should join it first. Never raises.
        """
        if not isinstance(path, str | Path):
            return False
        return is_strictly_inside(path, self.path)

    def is_index(self, path: object) -> bool:
        """True when `path` is this directory's MEMORY.md (after resolving symlinks)."""
        if not isinstance(path, str | Path):
            return False
        target = real_path(path)
        return target is not None and target == real_path(self.index_path)

    def _checked(self, path: Path) -> Path:
        if not self.contains(path):
            raise ValueError(f"{path} is not inside the auto-memory directory {self.path}")
        return path

    @contextlib.contextmanager
    def lock(self, path: Path) -> Iterator[None]:
        """Cross-process lock for one memory file, for read-modify-write by tools (X2)."""
        with file_lock(self._checked(path)):
            yield

    def locked_write(self, path: Path, text: str) -> None:
        """Replace a memory file atomically under its lock (X2). Raises ValueError outside."""
        target = self._checked(path)
        with file_lock(target):
            atomic_write_text(target, text)

    def locked_update(self, path: Path, update: Callable[[str | None], str | None]) -> str | None:
        """Read-modify-write a memory file under its lock (X2). Raises ValueError outside."""
        return locked_update(self._checked(path), update)
