"""Grep: regex search over file contents, via ripgrep or an equivalent pure-Python fallback.

Both backends produce the same structured hits; one formatter renders them, so the model sees the
same text whichever backend ran.
"""

from __future__ import annotations

import asyncio
import base64
import bisect
import json
import re
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal

from wave_tui.config.records import record
from wave_tui.files.text_files import split_lines
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult, resolve_path
from wave_tui.tools.glob_tool import (
    VCS_DIRS,
    compile_glob,
    expand_braces,
    find_ripgrep,
    walk_files,
)

OutputMode = Literal["files_with_matches", "content", "count"]
MAX_OUTPUT_CHARS = 30_000
MAX_LINE_CHARS = 1000
RG_TIMEOUT_S = 60.0

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


@record(frozen=False)
class FileHits:
    path: Path
    lines: list[tuple[int, str, bool]] = field(default_factory=list)  # (number, text, is_match)
    count: int = 0  # matching lines


@record
class GrepQuery:
    pattern: str
    root: Path  # a directory or a single file
    mode: OutputMode
    glob: str | None
    file_type: str | None
    ignore_case: bool
    multiline: bool
    before: int
    after: int


# ---- ripgrep backend ------------------------------------------------------------------------


def _rg_command(rg: str, q: GrepQuery) -> tuple[list[str], Path]:
    cmd = [rg, "--no-config", "--hidden", "--no-require-git", "--color=never"]
    cmd += [f"--glob=!{d}" for d in sorted(VCS_DIRS)]
    if q.ignore_case:
        cmd.append("--ignore-case")
    if q.multiline:
        cmd += ["--multiline", "--multiline-dotall"]
    if q.glob:
        # Expanded here as in the fallback: rg rejects nested `{a,{b,c}}` groups.
        for alternative in expand_braces(q.glob):
            cmd += ["--glob", alternative]
    if q.file_type:
        cmd += ["--type", q.file_type]
    if q.mode == "files_with_matches":
        cmd += ["--files-with-matches", "--null"]
    elif q.mode == "count":
        cmd += ["--count", "--with-filename", "--null"]
    else:
        cmd += ["--json", f"--before-context={q.before}", f"--after-context={q.after}"]
    cmd += ["-e", q.pattern]
    # Globs are matched relative to rg's working directory: run it from the search root.
    if q.root.is_dir():
        return cmd, q.root
    return [*cmd, "--", q.root.name], q.root.parent


def _json_text(obj: dict[str, Any]) -> str:
    if "text" in obj:
        return str(obj["text"])
    return base64.b64decode(obj.get("bytes", "")).decode("utf-8", "replace")


def _parse_rg(output: bytes, q: GrepQuery, cwd: Path) -> list[FileHits]:
    hits: dict[str, FileHits] = {}
    if q.mode == "files_with_matches":
        for raw in output.split(b"\0"):
            name = raw.strip(b"\n").decode("utf-8", "surrogateescape")
            if name:
                hits[name] = FileHits(path=cwd / name)
        return list(hits.values())
    if q.mode == "count":
        for counted in output.decode("utf-8", "surrogateescape").split("\n"):
            name, _, count = counted.rpartition("\0")
            if name:
                hits[name] = FileHits(path=cwd / name, count=int(count))
        return list(hits.values())
    for line in output.split(b"\n"):
        if not line.strip():
            continue
        event = json.loads(line)
        if event["type"] not in ("match", "context"):
            continue
        data = event["data"]
        name = _json_text(data["path"])
        entry = hits.setdefault(name, FileHits(path=cwd / name))
        is_match = event["type"] == "match"
        # A multiline match arrives as one event spanning several lines, separated by "\n" only
        # (str.splitlines would also split at \x0c, U+2028, ... and misnumber the lines).
        for i, text in enumerate(split_lines(_json_text(data["lines"])) or [""]):
            entry.lines.append((data["line_number"] + i, text, is_match))
            entry.count += is_match
    return list(hits.values())


async def _run_rg(rg: str, q: GrepQuery) -> list[FileHits]:
    cmd, cwd = _rg_command(rg, q)
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(RG_TIMEOUT_S):  # not wait_for: see llm/client.py _open
            out, err = await proc.communicate()
    except TimeoutError as exc:
        proc.kill()
        await proc.wait()
        raise ToolError(
            f"Grep timed out after {RG_TIMEOUT_S:.0f}s; narrow the path or glob."
        ) from exc
    # Exit 2 also covers "some files were unreadable"; only fail when nothing was found at all.
    if proc.returncode == 2 and not out:
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise ToolError(f"Grep failed: {message[-1] if message else 'ripgrep exit code 2'}")
    return await asyncio.to_thread(_parse_rg, out, q, cwd)


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


# ---- output ----------------------------------------------------------------------------------


def _order(hits: list[FileHits], mode: OutputMode) -> list[FileHits]:
    if mode != "files_with_matches":
        return sorted(hits, key=lambda h: str(h.path))

    def newest(h: FileHits) -> tuple[int, str]:
        try:
            return (-h.path.stat().st_mtime_ns, str(h.path))
        except OSError:
            return (0, str(h.path))

    return sorted(hits, key=newest)


def _clip(text: str) -> str:
    if len(text) <= MAX_LINE_CHARS:
        return text
    return f"{text[:MAX_LINE_CHARS]}… [{len(text) - MAX_LINE_CHARS} more characters]"


def _render(hits: list[FileHits], q: GrepQuery, numbers: bool) -> list[tuple[str, Path | None]]:
    """Output lines paired with the file whose content they show (None for separators/names)."""
    if q.mode == "files_with_matches":
        return [(str(h.path), None) for h in hits]
    if q.mode == "count":
        return [(f"{h.path}:{h.count}", None) for h in hits]
    with_context = q.before > 0 or q.after > 0
    rows: list[tuple[str, Path | None]] = []
    for h in hits:
        previous: int | None = None
        for number, text, is_match in h.lines:
            if with_context and rows and (previous is None or number > previous + 1):
                rows.append(("--", None))
            sep = ":" if is_match else "-"
            prefix = f"{h.path}{sep}{number}{sep}" if numbers else f"{h.path}{sep}"
            rows.append((prefix + _clip(text), h.path))
            previous = number
    return rows


def format_grep(
    hits: list[FileHits], q: GrepQuery, numbers: bool, head_limit: int | None
) -> ToolResult:
    hits = _order(hits, q.mode)
    rows = _render(hits, q, numbers)
    if not rows:
        return ToolResult(content="No matches found", summary="No matches")
    total = len(rows)
    notes: list[str] = []
    if head_limit is not None and total > head_limit:
        rows = rows[:head_limit]
        while rows and rows[-1][0] == "--":
            rows.pop()
        notes.append(f"(Output limited to the first {head_limit} of {total} lines.)")
    size, kept = 0, 0
    for text, _ in rows:
        size += len(text) + 1
        if size > MAX_OUTPUT_CHARS:
            break
        kept += 1
    if kept < len(rows):
        rows = rows[:kept]
        notes.append(
            f"(Output truncated at {MAX_OUTPUT_CHARS} characters; use head_limit, a glob or a "
            "narrower path to see the rest.)"
        )
    content = "\n".join(text for text, _ in rows)
    if notes:
        content += "\n\n" + "\n".join(notes)
    context_paths = list(dict.fromkeys(p for _, p in rows if p is not None))
    if q.mode == "files_with_matches":
        summary = f"Found {len(hits)} file{'s' if len(hits) != 1 else ''}"
    elif q.mode == "count":
        n = sum(h.count for h in hits)
        summary = f"Found {n} match{'es' if n != 1 else ''} in {len(hits)} files"
    else:
        n = sum(h.count for h in hits)
        summary = f"Found {n} matching line{'s' if n != 1 else ''}"
    return ToolResult(content=content, summary=summary, context_paths=context_paths)


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
            hits = await _run_rg(self.rg_path, query)
        else:
            hits = await asyncio.to_thread(_run_python, query)
        return format_grep(hits, query, args.line_numbers, args.head_limit)
