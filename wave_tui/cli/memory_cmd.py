"""`wave memory list|show|delete|add|…`: the memory browser's entries, scriptable (M3, M4);
runs, revert, inbox, accept, reject and search live in `memory_review_cmd` (MX7–MX10)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TextIO

from wave_tui.cli.memory_review_cmd import (
    REVIEW_ACTIONS,
    ReviewError,
    add_review_parsers,
    duplicates_json,
    format_duplicates,
    run_review_action,
)
from wave_tui.cli.process import PipeParser
from wave_tui.config.clock import Clock, system_clock
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsFileError
from wave_tui.session.facade import (
    MemoryAccess,
    audit_session,
    check_memory,
    consolidate,
    consolidation_plan,
    current_settings,
    mode_line,
    set_memory_mode,
)
from wave_tui.session.types import CheckError, EntryError, MemoryEntry

SCOPE_HEADINGS = {
    "project": "Project memory (AGENTS.md)",
    "team": "Team memory (.wave/memory/)",
    "user": "User memory (~/.wave/AGENTS.md)",
    "auto": "Auto memory",
    "rule": "Rules",
}
TITLE_WIDTH = 60


class _ArgError(Exception):
    pass


class _Parser(PipeParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="wave memory", description="List, show, delete and add memory entries.")
    sub = parser.add_subparsers(dest="action", required=True)
    list_cmd = sub.add_parser("list", help="list every memory entry")
    list_cmd.add_argument("--json", action="store_true", help="print a JSON array")
    list_cmd.add_argument(
        "--duplicates", action="store_true", help="only entries that repeat another entry"
    )
    show = sub.add_parser("show", help="print an entry's content and who wrote it")
    show.add_argument("id", metavar="ID")
    show.add_argument("--json", action="store_true", help="print its provenance as JSON")
    sub.add_parser("delete", help="delete an entry").add_argument("id", metavar="ID")
    add_cmd = sub.add_parser("add", help="save a new entry to AGENTS.md")
    add_cmd.add_argument("--scope", choices=["project", "user"], required=True)
    add_cmd.add_argument("text", nargs="+", metavar="TEXT")
    check = sub.add_parser("check", help="find memories and instructions that contradict")
    check.add_argument("--json", action="store_true", help="print a JSON array of pairs")
    tidy = sub.add_parser(
        "consolidate", help="merge duplicates, drop outdated memories, trim MEMORY.md"
    )
    tidy.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")
    audit = sub.add_parser("audit", help="check a past session's tool calls against the rules")
    audit.add_argument("--session", metavar="ID", help="the session (default: the latest)")
    audit.add_argument("--json", action="store_true", help="print a JSON array of violations")
    mode = sub.add_parser("mode", help="show or set who writes auto memory (autoMemoryWrites)")
    mode.add_argument(
        "mode", nargs="?", choices=["auto", "review", "off"], metavar="auto|review|off"
    )
    add_review_parsers(sub)
    return parser


def command_parsers() -> list[tuple[argparse.ArgumentParser, str]]:
    """Each `wave memory <action>` parser with its one-line help, in `wave memory --help` order
    (for the command list of `wave --help`)."""
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [(sub.choices[action.dest], action.help or "") for action in sub._choices_actions]


def _age(entry: MemoryEntry) -> str:
    if entry.age_days is None:
        return ""
    missing = f" cites missing: {', '.join(entry.missing_refs)}" if entry.missing_refs else ""
    changed = ", ".join(c.ref for c in entry.changed_refs)
    missing += f" citation changed: {changed}" if changed else ""
    return f"{entry.age_days}d" + (" stale" if entry.stale else "") + missing


def _shorten(text: str, width: int = TITLE_WIDTH) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= width else one_line[: width - 1] + "…"


def format_table(entries: list[MemoryEntry]) -> str:
    if not entries:
        return "No memory entries."
    id_width = max(len(e.id) for e in entries)
    blocks: list[str] = []
    for scope, heading in SCOPE_HEADINGS.items():
        group = [e for e in entries if e.scope == scope]
        if not group:
            continue
        rows = [heading]
        for e in group:
            detail = e.reason or (f"[{e.type}]" if e.type else "")
            cells = [e.id.ljust(id_width), _shorten(e.title), detail or "", _age(e)]
            rows.append("  " + "  ".join(c for c in cells if c).rstrip())
        blocks.append("\n".join(rows))
    return "\n\n".join(blocks)


# req: MM2
def _check(args: argparse.Namespace, memory: MemoryAccess, out: TextIO, err: TextIO) -> int:
    try:
        conflicts = asyncio.run(check_memory(memory.paths, memory.clock))
    except CheckError as exc:
        print(f"wave memory check: {exc}", file=err)
        return 1
    if args.json:
        print(json.dumps([c.to_json() for c in conflicts], ensure_ascii=False, indent=2), file=out)
        return 0
    if not conflicts:
        print("No contradictions found.", file=out)
    for c in conflicts:
        print(f"{c.a.id}  vs  {c.b.id}: {c.reason}", file=out)
        print(f"  {_shorten(c.a.text, 100)}\n  {_shorten(c.b.text, 100)}", file=out)
    return 0


# req: MM5
def _consolidate(args: argparse.Namespace, memory: MemoryAccess, out: TextIO, err: TextIO) -> int:
    try:
        if args.dry_run:
            planned = asyncio.run(consolidation_plan(memory.paths, memory.clock))
            done = None
        else:
            done = asyncio.run(consolidate(memory.paths, memory.clock))
            planned = done.plan
    except CheckError as exc:
        print(f"wave memory consolidate: {exc}", file=err)
        return 1
    if not planned.steps:
        print("Nothing to consolidate.", file=out)
        return 0
    for line in planned.summary():
        print(f"- {line}", file=out)
    if done is None:
        print(planned.diff().rstrip("\n"), file=out)
        print("(dry run: nothing changed)", file=out)
    elif done.run is not None:
        print(
            f"consolidated as run {done.run.id}: `wave memory revert {done.run.id}` undoes it",
            file=out,
        )
        print(done.run.diff().rstrip("\n"), file=out)
    else:
        print(f"{len(done.pending)} change(s) waiting for review: `wave memory inbox`", file=out)
    return 0


# req: MR3
def _audit(args: argparse.Namespace, paths: WavePaths, out: TextIO, err: TextIO) -> int:
    try:
        session, violations = asyncio.run(audit_session(paths, args.session))
    except CheckError as exc:
        print(f"wave memory: {exc}", file=err)
        return 1
    if args.json:
        print(json.dumps([v.to_json() for v in violations], ensure_ascii=False, indent=2), file=out)
        return 0
    if not violations:
        print(f"No rule broken in session {session}.", file=out)
    for violation in violations:
        print(violation.notice(), file=out)
    return 0


# req: MR5
def _show(args: argparse.Namespace, memory: MemoryAccess, out: TextIO, err: TextIO) -> int:
    """The body on stdout (pipeable as before), its provenance on stderr; `--json`: both as
    one object on stdout."""
    entry = memory.show(args.id)
    provenance = memory.provenance(entry)
    if args.json:
        data = {**provenance.to_json(), "body": entry.body}
        print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        return 0
    print(entry.body.rstrip("\n"), file=out)
    for line in provenance.lines():
        print(line, file=err)
    return 0


# req: MR1
def _mode(args: argparse.Namespace, paths: WavePaths, out: TextIO, err: TextIO) -> int:
    if args.mode is not None:
        try:
            set_memory_mode(paths, args.mode)
        except (ValueError, SettingsFileError) as exc:
            print(f"wave memory: {exc}", file=err)
            return 1
    print(mode_line(current_settings(paths)), file=out)
    return 0


def run_memory_command(
    argv: list[str],
    paths: WavePaths,
    clock: Clock = system_clock,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run `wave memory …` (argv without the leading `memory`). Returns the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except _ArgError as exc:
        print(f"wave memory: {exc}", file=err)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        return _dispatch(args, MemoryAccess.for_command(paths, clock), out, err)
    except (EntryError, *ReviewError) as exc:
        print(f"wave memory: {exc}", file=err)
        return 1


# req: MX9
# req: MX6
def _dispatch(args: argparse.Namespace, memory: MemoryAccess, out: TextIO, err: TextIO) -> int:
    if args.action in REVIEW_ACTIONS:
        return run_review_action(args, memory.paths, out)
    if args.action == "check":
        return _check(args, memory, out, err)
    if args.action == "consolidate":
        return _consolidate(args, memory, out, err)
    if args.action == "mode":
        return _mode(args, memory.paths, out, err)
    if args.action == "audit":
        return _audit(args, memory.paths, out, err)
    if args.action == "list":
        entries = memory.list(warn=lambda m: print(f"warning: {m}", file=err))
        if args.duplicates:
            print(duplicates_json(entries) if args.json else format_duplicates(entries), file=out)
            return 0
        entries = memory.with_missing_refs(entries)
        if args.json:
            print(
                json.dumps([e.to_json() for e in entries], ensure_ascii=False, indent=2), file=out
            )
        else:
            print(format_table(entries), file=out)
        return 0
    if args.action == "show":
        return _show(args, memory, out, err)
    if args.action == "delete":
        entry = memory.delete(args.id)
        print(f"deleted {entry.id} ({_shorten(entry.title)}) from {entry.path}", file=out)
        return 0
    target = memory.target(args.scope)
    text = " ".join(args.text)
    result = memory.add(args.scope, text)
    if not result.added:
        print(f"already saved: {result.duplicate_of} ({target})", file=err)
        return 0
    print(f"saved to {target}", file=out)
    similar = memory.similar_entry(text, target)  # req: MX9
    if similar is not None:
        print(f"note: this entry {similar.describe()}", file=err)
    return 0
