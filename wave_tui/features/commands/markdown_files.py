"""Markdown files with frontmatter under a few folders, re-parsed only when they change.

Shared by custom commands and skills (hot reload, CS6): every lookup walks the folders (cheap:
stats only) and re-parses just the files whose stat changed.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

from wave_tui.config.records import record
from wave_tui.features.commands.lenient_frontmatter import parse_lenient
from wave_tui.files.real_paths import is_inside
from wave_tui.memory.frontmatter import Frontmatter
from wave_tui.permissions.rules import parse_rule_list

MAX_FILE_BYTES = 256 * 1024
_POSITIONAL = re.compile(r"\$(\d+)")
ARGUMENTS = "$ARGUMENTS"


@record
class ExtraRoot:
    """A folder of commands, skills or agents from outside the project's own folders (a plugin):
    its names are `namespace:name`."""

    folder: Path  # or one Markdown file
    scope: str
    namespace: str
    plugin_root: Path | None = None  # what `${CLAUDE_PLUGIN_ROOT}` in its bodies means


_Sig = tuple[int, int]


def _sig(path: Path) -> _Sig | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


class MarkdownCache:
    """Parsed frontmatter per path, kept while the file's stat is unchanged."""

    def __init__(self, warn: Callable[[str], None], label: Callable[[Path], str] = str) -> None:
        self._warn = warn
        self._label = label
        self._parsed: dict[Path, tuple[_Sig, Frontmatter]] = {}
        self._reported: set[tuple[Path, str]] = set()

    # req: CS6
    def load(self, path: Path, inside: Path | None = None) -> Frontmatter | None:
        """The file's frontmatter; None when it is missing or unreadable, or — with `inside` —
        when its real path is not in that folder (a project's command or skill that is a link
        to `~/.ssh/id_rsa` is not served)."""
        if inside is not None and path.exists() and not is_inside(path, inside):
            self._parsed.pop(path, None)
            self._report(path, "links outside the project; skipped")
            return None
        sig = _sig(path)
        if sig is None:
            self._parsed.pop(path, None)
            return None
        cached = self._parsed.get(path)
        if cached is not None and cached[0] == sig:
            return cached[1]
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_FILE_BYTES)
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self._report(path, f"cannot read: {exc}")
            return None
        parsed = parse_lenient(text)
        if parsed.error:
            self._report(path, parsed.error)
        self._parsed[path] = (sig, parsed)
        return parsed

    def _report(self, path: Path, problem: str) -> None:
        if (path, problem) not in self._reported:
            self._reported.add((path, problem))
            self._warn(f"{self._label(path)}: {problem}")


def walk_markdown(folder: Path) -> Iterator[Path]:
    """`*.md` files under `folder`, recursively, in a stable order (no symlink loops)."""
    if not folder.is_dir():
        return
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".md"):
                yield Path(root) / name


def walk_root(root: ExtraRoot) -> Iterator[tuple[Path, Path]]:
    """(file, its name's relative path) for each `*.md` of an extra root (a file: itself)."""
    if root.folder.is_file():
        yield root.folder, Path(root.folder.name)
        return
    for path in walk_markdown(root.folder):
        yield path, path.relative_to(root.folder)


def split_arguments(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def expand_arguments(body: str, args: str) -> str:
    """`$ARGUMENTS` → the whole argument text, `$1`, `$2`, … → each word (missing: empty).

    A body with no placeholder gets the arguments appended, so they are never lost."""
    # req: CS2
    has_placeholder = ARGUMENTS in body or _POSITIONAL.search(body) is not None
    words = split_arguments(args)

    def positional(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return words[index - 1] if 0 < index <= len(words) else ""

    out = _POSITIONAL.sub(positional, body.replace(ARGUMENTS, args))
    if not has_placeholder and args:
        out = f"{out.rstrip()}\n\nARGUMENTS: {args}"
    return out


def str_list(value: object) -> tuple[str, ...]:
    """A frontmatter list given as YAML list or a comma / space separated string."""
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    if isinstance(value, str):
        return tuple(parse_rule_list(value))
    return ()
