"""Grep: regex search over file contents, via ripgrep or an equivalent pure-Python fallback.

Both backends produce the same rows (`grep_output.py`); one formatter renders them, so the model
sees the same text whichever backend ran. The ripgrep backend is in `grep_rg.py`.
"""

from __future__ import annotations

import asyncio
import bisect
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult, resolve_path
from wave_tui.tools.glob_tool import compile_glob, find_ripgrep, walk_files
from wave_tui.tools.grep_output import (
    FileHits,
    GrepQuery,
    Listing,
    OutputMode,
    format_listing,
    listing_of_hits,
)
from wave_tui.tools.grep_rg import listing_of_rg, run_rg

# A subset of ripgrep's built-in types, for the fallback backend.
FILE_TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi"),
    "js": ("*.js", "*.jsx", "*.mjs", "*.cjs"),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "java": ("*.java",),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"),
    "rb": ("*.rb",),
    "ruby": ("*.rb",),
    "sh": ("*.sh", "*.bash", "*.zsh"),
    "md": ("*.md", "*.markdown", "*.mdx"),
    "markdown": ("*.md", "*.markdown", "*.mdx"),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml",),
    "html": ("*.html", "*.htm"),
    "css": ("*.css",),
    "txt": ("*.txt",),
}

DESCRIPTION = """\
Search file contents with a regular expression (ripgrep syntax), respecting .gitignore.
- pattern: regex, e.g. "def \\w+_handler" or "TODO|FIXME". Escape literal braces/parens.
- path: file or directory to search (default: the working directory).
- glob: filter files, e.g. "*.py" or "src/**/*.ts"; type: file type, e.g. "py", "js", "rust".
- output_mode: "files_with_matches" (default; matching file paths, newest first), "content" \
(matching lines as path:line:text; supports -A/-B/-C context and -n line numbers, on by default) \
or "count" (path:count of matching lines).
- -i: case-insensitive. multiline: let the pattern span lines ("." matches newlines).
- head_limit: keep only the first N lines/entries of the output.
Prefer this tool over running grep or rg through Bash."""


# ---- pure-Python backend ---------------------------------------------------------------------


def _candidate_files(q: GrepQuery) -> Iterable[Path]:
    if q.root.is_file():
        return [q.root]  # an explicit file is searched whatever the filters say, as rg does
    specs = []
    if q.glob:
        specs.append(compile_glob(q.glob))
    if q.file_type:
        globs = FILE_TYPES.get(q.file_type)
        if globs is None:
            raise ToolError(
                f"Unknown file type {q.file_type!r}. Known types: {', '.join(FILE_TYPES)}."
            )
        specs.append(compile_glob(*globs))
    return (
        p
        for p in walk_files(q.root)
        if all(s.match_file(p.relative_to(q.root).as_posix()) for s in specs)
    )


def _search_file(path: Path, regex: re.Pattern[str], q: GrepQuery) -> FileHits | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None  # binary: ripgrep skips these too
    text = data.decode("utf-8", "replace")
    # Lines end at "\n" only, as in ripgrep and Read (str.splitlines would also split at \x0c,
    # \x1c-\x1e, \x85, U+2028 ... and shift every later line number). Like ripgrep without
    # --crlf, a line's "\r" stays part of it for matching: `x$` does not match "x\r".
    raw = text.split("\n")
    if raw[-1] == "":
        raw.pop()  # no phantom line after the final newline
    lines = [line.removesuffix("\r") for line in raw]
    matched: set[int] = set()  # 0-based line indexes
    if q.multiline:
        starts = [0]
        for line in raw:
            starts.append(starts[-1] + len(line) + 1)
        for m in regex.finditer(text):
            first = bisect.bisect_right(starts, m.start()) - 1
            last = bisect.bisect_right(starts, max(m.start(), m.end() - 1)) - 1
            matched.update(range(first, min(last, len(lines) - 1) + 1))
    else:
        matched = {i for i, line in enumerate(raw) if regex.search(line)}
    if not matched:
        return None
    hits = FileHits(path=path, count=len(matched))
    if q.mode == "content":
        shown: set[int] = set()
        for i in matched:
            shown.update(range(max(0, i - q.before), min(len(lines), i + q.after + 1)))
        hits.lines = [(i + 1, lines[i], i in matched) for i in sorted(shown)]
    return hits


def _run_python(q: GrepQuery) -> list[FileHits]:
    flags = re.IGNORECASE if q.ignore_case else 0
    if q.multiline:
        flags |= re.DOTALL | re.MULTILINE
    try:
        regex = re.compile(q.pattern, flags)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {q.pattern!r}: {exc}") from exc
    return [h for p in _candidate_files(q) if (h := _search_file(p, regex, q)) is not None]


def _python_listing(q: GrepQuery, numbers: bool) -> Listing:
    return listing_of_hits(_run_python(q), q, numbers)


def _empty_is_absent(key: str, value: object) -> object:
    """Models send "" for an optional choice they mean to leave out."""
    return None if value == "" else value


@tool_arguments
class GrepArgs:
    pattern: Annotated[str, Arg("Regular expression to search for.")]
    path: Annotated[
        str | None, Arg("File or directory to search (default: the working directory).")
    ] = None
    glob: Annotated[str | None, Arg('Only search files matching this glob, e.g. "*.py".')] = None
    file_type: Annotated[
        str | None, Arg('Only search this file type, e.g. "py", "js".', name="type")
    ] = None
    output_mode: Annotated[
        OutputMode,
        Arg('What to return (default "files_with_matches").', normalize=_empty_is_absent),
    ] = "files_with_matches"
    after: Annotated[
        int | None, Arg("Lines of context after each match (content mode).", name="-A", minimum=0)
    ] = None
    before: Annotated[
        int | None,
        Arg("Lines of context before each match (content mode).", name="-B", minimum=0),
    ] = None
    around: Annotated[
        int | None,
        Arg("Lines of context around each match (content mode).", name="-C", minimum=0),
    ] = None
    ignore_case: Annotated[bool, Arg("Case-insensitive search.", name="-i")] = False
    line_numbers: Annotated[
        bool, Arg("Show line numbers (content mode; default true).", name="-n")
    ] = True
    head_limit: Annotated[
        int | None, Arg("Keep only the first N output lines/entries.", minimum=1)
    ] = None
    multiline: Annotated[bool, Arg('Let the pattern span lines; "." matches newlines.')] = False


class GrepTool(TypedTool[GrepArgs]):
    name = "Grep"
    description = DESCRIPTION
    read_only = True
    arguments = GrepArgs

    def __init__(self, *, use_ripgrep: bool = True, rg_path: str | None = None) -> None:
        self.rg_path = (rg_path or find_ripgrep()) if use_ripgrep else None

    async def call(self, args: GrepArgs, ctx: ToolContext) -> ToolResult:
        if args.pattern == "":
            raise ToolError("pattern must not be empty.")
        root = resolve_path(args.path or ".", ctx.workdir)
        if not root.exists():
            raise ToolError(f"Path does not exist: {root}")
        around, before, after = args.around, args.before, args.after
        in_content = args.output_mode == "content"
        query = GrepQuery(
            pattern=args.pattern,
            root=root,
            mode=args.output_mode,
            glob=args.glob or None,
            file_type=args.file_type or None,
            ignore_case=args.ignore_case,
            multiline=args.multiline,
            before=(before if before is not None else around or 0) if in_content else 0,
            after=(after if after is not None else around or 0) if in_content else 0,
        )
        if self.rg_path:
            out, cwd = await run_rg(self.rg_path, query)
            listing = await asyncio.to_thread(listing_of_rg, out, query, cwd, args.line_numbers)
        else:
            listing = await asyncio.to_thread(_python_listing, query, args.line_numbers)
        return await asyncio.to_thread(format_listing, listing, args.head_limit)
