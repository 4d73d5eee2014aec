"""Stale references: memories that cite a file, `file:line` or symbol no longer in the project (MX6).

Memories are point-in-time; code moves on. Checks stay cheap: a cited path must exist (a bare
file name anywhere in the project), a cited line must be within the file's length, and a cited
symbol (a backticked identifier that looks like code: `snake_case`, `CamelCase`, `name()`,
`mod.attr`) must occur as a word somewhere in the project — one ripgrep run for all symbols, or a
bounded scan of the project's text files when `rg` is not installed.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from wave_tui.config.records import record

RefKind = Literal["file", "line", "symbol", "path_symbol"]
SCAN_MAX_FILES = 5000  # the no-ripgrep fallback stops here: a symbol not seen counts as present
SCAN_MAX_BYTES = 1_000_000  # per file
RG_TIMEOUT_S = 10.0
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build"})
_EXTENSIONS = (
    "py|pyi|ts|tsx|js|jsx|mjs|cjs|json|toml|yaml|yml|md|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|"
    "swift|sh|sql|html|css|scss|vue|svelte|lock|cfg|ini|txt"
)
_PATH_PATTERN = rf"(?<![\w/.:@-])((?:\.{{1,2}}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.(?:{_EXTENSIONS}))(?::(\d+)|#([A-Za-z_]\w*))?(?![\w/])"
_CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")
_SYMBOL_RE = re.compile(
    r"^(?P<name>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(?:\(\))?$",
)


# req: MX6
@record
class Reference:
    text: str  # as cited: `src/a.py`, `src/a.py:42`, `parse_config()`
    kind: RefKind
    path: str | None = None
    line: int | None = None
    symbol: str | None = None


def _looks_like_code(name: str) -> bool:
    last = name.split(".")[-1]
    return "_" in last or "." in name or any(c.isupper() for c in last[1:])


@functools.cache
def _path_re() -> re.Pattern[str]:
    """Compiled when a memory's references are first checked, not at every start."""
    return re.compile(_PATH_PATTERN)


@functools.cache
def _extension_re() -> re.Pattern[str]:
    """What every cited path holds: a known extension that ends the name."""
    return re.compile(rf"\.(?:{_EXTENSIONS})(?![\w/])")


def find_references(text: str) -> list[Reference]:
    """Files, `file:line`s and symbols a memory's text cites, each once, in order."""
    found: dict[str, Reference] = {}
    # Most memories cite nothing: a search for an extension alone rules a path out ~10x faster
    # than the path pattern, over 10,000 entries each time the browser opens.
    paths = _path_re().finditer(text) if _extension_re().search(text) else ()
    for match in paths:
        before = text[max(0, match.start() - 3) : match.start()]
        if before.endswith("://") or "://" in match.group(0):
            continue
        path, line, anchor = match.group(1), match.group(2), match.group(3)
        if line is not None:
            ref = Reference(f"{path}:{line}", "line", path=path, line=int(line))
        elif anchor is not None:  # `path#symbol`: a definition in that file
            ref = Reference(f"{path}#{anchor}", "path_symbol", path=path, symbol=anchor)
        else:
            ref = Reference(path, "file", path=path)
        found.setdefault(ref.text, ref)
    for span in _CODE_SPAN_RE.finditer(text) if "`" in text else ():
        inner = span.group(1).strip()
        symbol = _SYMBOL_RE.match(inner)
        if symbol is None or _path_re().fullmatch(inner) or not _looks_like_code(symbol["name"]):
            continue
        name = symbol["name"].split(".")[-1]
        found.setdefault(inner, Reference(inner, "symbol", symbol=name))
    return list(found.values())


class ProjectIndex:
    """What exists in the project, looked up lazily once per check."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._names: set[str] | None = None
        self._files: list[Path] | None = None

    def _walk(self) -> list[Path]:
        if self._files is None:
            files: list[Path] = []
            for dirpath, dirnames, filenames in os.walk(self.root):
                dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")]
                files.extend(Path(dirpath) / name for name in filenames)
                if len(files) >= SCAN_MAX_FILES:
                    break
            self._files = files[:SCAN_MAX_FILES]
        return self._files

    def resolve(self, cited: str) -> Path | None:
        """The cited file, or None when it does not exist (a bare name may live anywhere)."""
        path = Path(cited).expanduser()
        direct = path if path.is_absolute() else self.root / path
        if direct.is_file():
            return direct
        if "/" in cited:
            return None
        if self._names is None:
            self._names = {p.name for p in self._walk()}
        if cited in self._names:
            return next(p for p in self._walk() if p.name == cited)
        return None

    def missing_symbols(self, symbols: Iterable[str]) -> set[str]:
        wanted = set(symbols)
        if not wanted:
            return set()
        rg = shutil.which("rg")
        present = self._rg_present(rg, wanted) if rg else self._scan_present(wanted)
        return wanted - present if present is not None else set()

    def _rg_present(self, rg: str, wanted: set[str]) -> set[str] | None:
        args = [rg, "--no-filename", "--only-matching", "--word-regexp", "--fixed-strings"]
        for symbol in sorted(wanted):
            args += ["-e", symbol]
        try:
            done = subprocess.run(
                [*args, "--", str(self.root)],
                capture_output=True,
                text=True,
                timeout=RG_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None  # cannot tell: mark nothing
        return {line.strip() for line in done.stdout.splitlines()} & wanted

    def _scan_present(self, wanted: set[str]) -> set[str]:
        pattern = re.compile(r"\b(" + "|".join(re.escape(s) for s in sorted(wanted)) + r")\b")
        present: set[str] = set()
        files = self._walk()
        for file in files:
            try:
                if file.stat().st_size > SCAN_MAX_BYTES:
                    continue
                text = file.read_text(encoding="utf-8", errors="ignore")
            except OSError:
                continue
            present.update(pattern.findall(text))
            if present == wanted:
                break
        if len(files) >= SCAN_MAX_FILES:
            return wanted  # the scan was cut short: a symbol not seen may be in the rest
        return present


def _line_count(path: Path) -> int:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def _defines_word(path: Path, word: str) -> bool:
    """The file names `word` as a whole word somewhere (a `path#symbol` citation holds)."""
    try:
        text = path.read_text(encoding="utf-8", errors="ignore")
    except OSError:
        return False
    return re.search(rf"\b{re.escape(word)}\b", text) is not None


def missing_references(texts: dict[str, str], root: Path) -> dict[str, list[str]]:
    """For each key (an entry id), the cited things that no longer exist. Keys with none are left
    out. One index (and at most one symbol search) serves every text."""
    index = ProjectIndex(root)
    # Only what cites something: no empty list kept per text.
    cited = {key: refs for key, text in texts.items() if (refs := find_references(text))}
    symbols = {r.symbol for refs in cited.values() for r in refs if r.symbol is not None}
    gone_symbols = index.missing_symbols(symbols)
    result: dict[str, list[str]] = {}
    for key, refs in cited.items():
        missing: list[str] = []
        for ref in refs:
            if ref.kind == "symbol":
                if ref.symbol in gone_symbols:
                    missing.append(ref.text)
                continue
            assert ref.path is not None
            file = index.resolve(ref.path)
            if (
                file is None
                or (ref.line is not None and ref.line > _line_count(file))
                or (ref.kind == "path_symbol" and not _defines_word(file, ref.symbol or ""))
            ):
                missing.append(ref.text)
        if missing:
            result[key] = missing
    return result
