"""The existing-memory manifest that precedes the extraction prompt (F12, F13).

One line per memory file, newest first:
`- [<type>] <filename> (<ISO timestamp>): <description>`. With no memory files the manifest is
the empty string; `render_extraction_prompt` then says so in words.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from wave_tui.config.paths import MEMORY_INDEX_FILENAME
from wave_tui.config.records import record
from wave_tui.memory.citations import ChangedRef, CitationStore, changed_note
from wave_tui.memory.frontmatter import read_frontmatter_head
from wave_tui.memory.references import missing_references

MANIFEST_LIMIT = 200


@record
class MemoryFile:
    path: Path
    relative: str  # posix path relative to the memory dir
    mtime_s: float


def iso_utc(mtime_s: float) -> str:
    """`2026-11-29T10:00:00.000Z`, the form JavaScript's toISOString gives."""
    stamp = datetime.fromtimestamp(mtime_s, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def _skip(name: str) -> bool:
    return name.startswith(".") or name == MEMORY_INDEX_FILENAME or not name.endswith(".md")


# req: X4
def list_memory_files(memory_dir: Path) -> list[MemoryFile]:
    """Every topic file under the dir (recursively), newest first.

    Hidden files and folders (locks, temp files) and MEMORY.md are left out; symlinks are not
    followed, so the list never reaches outside the directory.
    """
    found: list[MemoryFile] = []
    for dirpath, dirnames, filenames in os.walk(memory_dir, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            if _skip(name):
                continue
            path = Path(dirpath) / name
            try:
                st = path.lstat()
            except OSError:
                continue
            if not path.is_file() or path.is_symlink():
                continue
            found.append(MemoryFile(path, path.relative_to(memory_dir).as_posix(), st.st_mtime))
    found.sort(key=lambda f: (-f.mtime_s, f.relative))
    return found


# req: F13
def _one_line(value: object) -> str:
    if value is None:
        return ""
    return " ".join(str(value).split())


# req: F12
# req: MX6
# req: MM1
def manifest_line(
    file: MemoryFile, missing: list[str] | None = None, changed: list[ChangedRef] | None = None
) -> str:
    try:
        fm = read_frontmatter_head(file.path)
        kind, description = _one_line(fm.data.get("type")), _one_line(fm.data.get("description"))
    except OSError:
        kind, description = "", ""
    line = f"- [{kind}] {file.relative} ({iso_utc(file.mtime_s)}): {description}"
    if missing:
        line += f" [cites what no longer exists: {', '.join(missing)}; fix or remove it]"
    if changed:
        line += f" [citation changed: {changed_note(changed)}; verify, then fix or remove it]"
    return line


def _texts(files: list[MemoryFile]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for file in files:
        try:
            texts[file.relative] = file.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return texts


# req: F12
def build_manifest(
    memory_dir: Path,
    limit: int = MANIFEST_LIMIT,
    project_root: Path | None = None,
    citations: Path | None = None,
) -> str:
    """The manifest text (lines joined by newlines), or "" when there are no memory files.

    With `project_root`, each memory citing a file, line or symbol that no longer exists there
    says so, so the fork can fix or remove it (MX6); with the `citations` store as well, each
    one whose cited text changed since it was written says so, with the old and new text (MM1)."""
    files = list_memory_files(memory_dir)[:limit]
    missing: dict[str, list[str]] = {}
    changed: dict[str, list[ChangedRef]] = {}
    if project_root is not None:
        texts = _texts(files)
        missing = missing_references(texts, project_root)
        if citations is not None:
            changed = CitationStore(citations, project_root).check(texts)
    return "\n".join(
        manifest_line(f, missing.get(f.relative), changed.get(f.relative)) for f in files
    )
