"""`@path` imports in AGENTS.md / CLAUDE.md: the named file is loaded in place (MX3).

A line that is only `@path` (optionally a list item, `- @docs/style.md`) imports the file, relative
to the importing file's folder, `~/…` from the home folder. Lines inside fenced code blocks and
inside code spans are text. Imports nest up to `MAX_IMPORT_HOPS`; a cycle, a missing file or a
too-deep chain keeps its line as written and is reported in one line per top-level file — never
fatal, and the rest of the file still loads.

An import is confined by its real path to the repository (or the project) and `~/.wave`, and
in `~/.wave` to Markdown (its settings, tokens and trust records are not memory). A file from
elsewhere (`@~/team/shared.md`) loads once the user approved the project's outside imports (asked
once per project, with the trust prompt; the user's own memory files need no approval); a
secret-looking file (`~/.ssh/…`, `*.pem`, `.env*`, key files) never loads, so a repository cannot
send the user's keys to the model. One top-level file loads at most `MAX_IMPORTED_FILES` files and
`MAX_IMPORTED_BYTES` bytes in all (a fan-out of 20 × 5 levels would otherwise be millions).
"""

from __future__ import annotations

import re
from dataclasses import field
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.trust import NOT_TRUSTED_YET, TrustRequested, TrustStore, fingerprint
from wave_tui.files.real_paths import is_inside
from wave_tui.memory.agents_md import Warn, read_memory_text
from wave_tui.memory.html_comments import strip_html_comments

MAX_IMPORT_HOPS = 5
MAX_IMPORTED_FILES = 64
MAX_IMPORTED_BYTES = 512 * 1024
_IMPORT_LINE_RE = re.compile(r"^[ \t]{0,3}(?:[-*+][ \t]+)?@(?P<target>[^\s`@][^\s`]*)[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
# The project's approval of outside imports is one answer, not one per file (Claude Code's
# external-import approval): the trust record fingerprints this single item.
OUTSIDE_IMPORTS = "memory imports from outside the project"
_SECRET_FOLDERS = frozenset(
    {".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store"}
)
_SECRET_SUFFIXES = frozenset({".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".asc"})
_SECRET_NAMES = re.compile(
    r"^(\.env.*|id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.*credentials.*|\.netrc|\.pgpass)$", re.I
)


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
    outside_allowed: bool = False  # the user's own file, or the project approved outside imports
    outside: list[Path] = field(default_factory=list)  # outside imports held for the approval

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


# req: FH10
def is_secret_looking(real: Path) -> bool:
    """A file no memory import loads, approved or not: keys, credentials, `.env` files."""
    if any(part in _SECRET_FOLDERS for part in real.parts[:-1]):
        return True
    return real.suffix.lower() in _SECRET_SUFFIXES or bool(_SECRET_NAMES.match(real.name))


# req: FH10
def outside_imports_approved(paths: WavePaths) -> bool:
    """Whether the user approved this project's memory imports from outside it."""
    store = TrustStore(paths.trust_file)
    return store.is_trusted(paths.project_root, "imports", (OUTSIDE_IMPORTS,))


# req: FH10
def outside_imports_request(
    memory_files: list[Path], paths: WavePaths, warn: Warn | None = None
) -> TrustRequested | None:
    """What to ask the user when the project's memory files import files from outside it and
    the project has no approval yet: the files, as they are named (secret-looking ones are not
    asked about: they never load)."""
    if outside_imports_approved(paths):
        return None
    found: list[Path] = []
    for file in memory_files:
        text = read_memory_text(file, warn)
        if text:
            found.extend(expand_imports(file, strip_html_comments(text), paths, warn).outside)
    if not found:
        return None
    items = tuple(sorted({str(f) for f in found}))
    project = paths.project_root.resolve()
    return TrustRequested(project, "imports", items, fingerprint((OUTSIDE_IMPORTS,)))


def expand_imports(
    path: Path, text: str, paths: WavePaths, warn: Warn | None = None
) -> ExpandedMemory:
    """The file's text with each import line replaced by the imported file's (expanded) text."""
    result = ExpandedMemory(text="", paths=paths)
    own = is_inside(_real(path), paths.wave_home)  # the user's memory imports what it names
    result.outside_allowed = own or outside_imports_approved(paths)
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
    refused = _refusal(real, result)
    if refused is not None:
        result.problems.append(f"{target} ({refused})")
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


# req: FH10
def _refusal(real: Path, result: ExpandedMemory) -> str | None:
    """Why a file may not be imported now, or None."""
    paths = result.paths
    if paths is None or import_allowed(real, paths):
        return None
    if is_inside(real, paths.wave_home):
        return "outside the project"  # ~/.wave's settings, tokens and trust records
    if is_secret_looking(real):
        return "outside the project: a secret-looking file, never imported"
    if result.outside_allowed:
        return None
    result.outside.append(real)
    return f"outside the project: {NOT_TRUSTED_YET}"
