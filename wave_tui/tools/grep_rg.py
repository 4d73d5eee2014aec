"""Grep's ripgrep backend: rg prints the output mode itself, and only the shown part is parsed.

rg is asked for the mode's own output (`--files-with-matches`, `--count`, or matching lines
under a heading per file) instead of `--json`: decoding an event per line cost more than rg's
whole search (9.5x rg alone at 100k files). The totals come from byte counts over the output;
only the files whose lines are shown are split into lines (SP6).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from pathlib import Path

from wave_tui.files.text_files import split_lines
from wave_tui.tools.base import ToolError
from wave_tui.tools.glob_tool import expand_braces, vcs_excludes
from wave_tui.tools.grep_output import (
    GrepQuery,
    Listing,
    Row,
    content_rows,
    newest_first,
    summary_of,
)

RG_TIMEOUT_S = 60.0
NO_FILES_SEARCHED = b"No files were searched"  # every file filtered out: no matches, not a failure
# A line of content output: its number, then ":" (a matching line) or "-" (context).
_MATCH_LINE_RE = re.compile(rb"(?:^|\x00)[0-9]+:", re.MULTILINE)
_LINE_RE = re.compile(r"([0-9]+)([:-])(.*)", re.DOTALL)


def rg_command(rg: str, q: GrepQuery) -> tuple[list[str], Path]:
    cmd = [rg, "--no-config", "--hidden", "--no-require-git", "--color=never"]
    if q.ignore_case:
        cmd.append("--ignore-case")
    if q.multiline:
        cmd += ["--multiline", "--multiline-dotall"]
    if q.glob:
        # Expanded here as in the fallback: rg rejects nested `{a,{b,c}}` groups.
        for alternative in expand_braces(q.glob):
            cmd += ["--glob", alternative]
    cmd += vcs_excludes()
    if q.file_type:
        cmd += ["--type", q.file_type]
    if q.mode == "files_with_matches":
        cmd += ["--files-with-matches", "--null"]
    elif q.mode == "count":
        cmd += ["--count", "--with-filename", "--null"]
    else:
        cmd += ["--heading", "--with-filename", "--null", "--line-number", "--no-column"]
        cmd += [f"--before-context={q.before}", f"--after-context={q.after}"]
    cmd += ["-e", q.pattern]
    # Globs are matched relative to rg's working directory: run it from the search root.
    if q.root.is_dir():
        return cmd, q.root
    return [*cmd, "--", q.root.name], q.root.parent


async def run_rg(rg: str, q: GrepQuery) -> tuple[bytes, Path]:
    """rg's output for the query, and the directory its names are relative to."""
    cmd, cwd = rg_command(rg, q)
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
    if proc.returncode == 2 and not out and NO_FILES_SEARCHED not in err:
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise ToolError(f"Grep failed: {message[-1] if message else 'ripgrep exit code 2'}")
    return out, cwd


def _name(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


# req: SP6
def listing_of_rg(out: bytes, q: GrepQuery, cwd: Path, numbers: bool) -> Listing:
    """rg's output as a listing, its rows parsed lazily."""
    base = os.path.join(os.fspath(cwd), "")
    if q.mode == "files_with_matches":
        names = dict.fromkeys(n for raw in out.split(b"\0") if (n := _name(raw.strip(b"\n"))))
        ordered = newest_first(base + name for name in names)
        return Listing(
            [(p, None) for p in ordered], len(ordered), summary_of(q.mode, len(ordered), 0)
        )
    if q.mode == "count":
        counted = sorted(
            (base + name, count)
            for name, _, count in (_name(line).rpartition("\0") for line in out.split(b"\n"))
            if name
        )
        matches = sum(int(count) for _, count in counted)
        counts: Iterator[Row] = ((f"{path}:{count}", None) for path, count in counted)
        return Listing(counts, len(counted), summary_of(q.mode, len(counted), matches))
    # Content: "name\0" starts each file's block of "N:text" / "N-text" / "--" lines; blocks
    # are separated by an empty line, which no line of a block can be.
    blocks = [b for b in out.rstrip(b"\n").split(b"\n\n") if b]
    if not blocks:
        return Listing([], 0, summary_of(q.mode, 0, 0))
    files = sorted(
        (base + _name(name), body) for name, _, body in (b.partition(b"\0") for b in blocks)
    )
    lines = out.count(b"\n") - (len(blocks) - 1)  # rg's own "--" lines included
    separators = len(blocks) - 1 if q.with_context else 0
    matches = len(_MATCH_LINE_RE.findall(out))
    rows = _content_rows(files, numbers, q.with_context)
    return Listing(rows, lines + separators, summary_of(q.mode, len(files), matches))


def _content_rows(files: list[tuple[str, bytes]], numbers: bool, context: bool) -> Iterator[Row]:
    for i, (name, body) in enumerate(files):
        yield from content_rows(Path(name), _block_lines(body), numbers, i == 0, context)


def _block_lines(body: bytes) -> Iterator[tuple[int, str, bool]]:
    # Lines end at "\n" only, as in Read (a "\r" before it is trimmed, as split_lines does).
    for line in split_lines(body.decode("utf-8", "replace")):
        if line == "--":
            continue
        found = _LINE_RE.fullmatch(line)
        if found is not None:
            number, sep, text = found.groups()
            yield int(number), text, sep == ":"
