"""`@path` imports in AGENTS.md / CLAUDE.md: the named file is loaded in place (MX3).

A line that is only `@path` (optionally a list item, `- @docs/style.md`) imports the file, relative
to the importing file's folder, `~/…` from the home folder. Lines inside fenced code blocks and
inside code spans are text. Imports nest up to `MAX_IMPORT_HOPS`; a cycle, a missing file or a
too-deep chain keeps its line as written and is reported in one line per top-level file — never
fatal, and the rest of the file still loads.

An import is confined by its real path to the repository (or the project) and `~/.wave`, and
in `~/.wave` to Markdown (its settings, tokens and trust records are not memory). A committed
`@~/.ssh/id_rsa`, `@../../secret` or a link pointing out is not loaded, so a repository cannot
send the user's files to the model. One top-level file loads at most `MAX_IMPORTED_FILES` files and
`MAX_IMPORTED_BYTES` bytes in all (a fan-out of 20 × 5 levels would otherwise be millions).
"""

from __future__ import annotations

import re
from dataclasses import field
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.files.real_paths import is_inside
from wave_tui.memory.agents_md import Warn, read_memory_text

MAX_IMPORT_HOPS = 5
MAX_IMPORTED_FILES = 64
MAX_IMPORTED_BYTES = 512 * 1024
_IMPORT_LINE_RE = re.compile(r"^[ \t]{0,3}(?:[-*+][ \t]+)?@(?P<target>[^\s`@][^\s`]*)[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")


# req: MX3
@record
class ImportedFile:
    path: Path
    importer: Path  # the file whose `@` line named it
    depth: int  # 1 = imported by the top-level file


@record(frozen=False)
class ExpandedMemory:
    text: str
    imported: list[ImportedFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "docs/x.md (missing)", …
    paths: WavePaths | None = None  # where imports may come from (`import_allowed`)
    loaded_bytes: int = 0

    def problem_line(self, shown: str) -> str | None:
        """One line naming every import that did not load, or None."""
        if not self.problems:
            return None
        return f"{shown}: imports not loaded: {', '.join(self.problems)}"


def import_target(line: str) -> str | None:
    """The path an import line names, or None for any other line."""
    found = _IMPORT_LINE_RE.match(line.rstrip("\r\n"))
    return found.group("target") if found else None


def resolve_import(target: str, importer: Path, home: Path) -> Path:
    if target == "~" or target.startswith("~/"):
        return home / target[2:]
    path = Path(target)
    return path if path.is_absolute() else importer.parent / path


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def import_allowed(real: Path, paths: WavePaths) -> bool:
    """Whether a file (by its real path) may be imported into memory (see the module)."""
    if is_inside(real, paths.wave_home):
        return real.suffix.lower() in (".md", ".markdown")
    return is_inside(real, paths.repo_top or paths.project_root)


def expand_imports(
    path: Path, text: str, paths: WavePaths, warn: Warn | None = None
) -> ExpandedMemory:
    """The file's text with each import line replaced by the imported file's (expanded) text."""
    result = ExpandedMemory(text="", paths=paths)
    result.text = _expand(path, text, paths.home, [_real(path)], result, warn)
    return result


def _expand(
    path: Path,
    text: str,
    home: Path,
    stack: list[Path],
    result: ExpandedMemory,
    warn: Warn | None,
) -> str:
    out: list[str] = []
    in_fence = False
    for line in text.splitlines(keepends=True):
        if _FENCE_RE.match(line):
            in_fence = not in_fence
        target = None if in_fence else import_target(line)
        if target is None:
            out.append(line)
            continue
        loaded = _load_one(target, path, home, stack, result, warn)
        if loaded is None:
            out.append(line)
            continue
        out.append(loaded if loaded.endswith("\n") else loaded + "\n")
    return "".join(out)


def _load_one(
    target: str,
    importer: Path,
    home: Path,
    stack: list[Path],
    result: ExpandedMemory,
    warn: Warn | None,
) -> str | None:
    file = resolve_import(target, importer, home)
    real = _real(file)
    if real in stack:
        result.problems.append(f"{target} (cycle)")
        return None
    if len(stack) > MAX_IMPORT_HOPS:
        result.problems.append(f"{target} (more than {MAX_IMPORT_HOPS} hops)")
        return None
    if result.paths is not None and not import_allowed(real, result.paths):
        result.problems.append(f"{target} (outside the project)")
        return None
    if len(result.imported) >= MAX_IMPORTED_FILES:
        result.problems.append(f"{target} (more than {MAX_IMPORTED_FILES} imported files)")
        return None
    try:
        is_file = real.is_file()
        size = real.stat().st_size if is_file else 0
    except OSError:
        is_file, size = False, 0
    if is_file and result.loaded_bytes + size > MAX_IMPORTED_BYTES:
        result.problems.append(f"{target} (more than {MAX_IMPORTED_BYTES // 1024} KiB imported)")
        return None
    # The real path is read, not the name: a link swapped after the check above stays checked.
    content = read_memory_text(real, warn) if is_file else None
    if content is None:
        result.problems.append(f"{target} (missing)")
        return None
    result.loaded_bytes += size
    result.imported.append(ImportedFile(file, importer, len(stack)))
    return _expand(file, content, home, [*stack, real], result, warn)
