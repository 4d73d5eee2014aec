"""`wave sessions list|show|rename|delete|rewind|fork`: the project's sessions, scriptable.

Unknown ids and message numbers out of range exit 2 with one line. `rewind` puts the files the
agent wrote since message N back (`--code`), cuts the conversation before it
(`--conversation`), or both (neither flag); in a script a file changed elsewhere since the agent
wrote it is named and left (exit 1) unless `--force`. `delete` asks on a terminal (`--yes`
skips asking) and refuses the session of a running wave.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from wave_tui.cli.process import PipeParser
from wave_tui.config.paths import WavePaths, display_path
from wave_tui.session.facade import ProjectSessions
from wave_tui.session.types import (
    BASH_NOTE,
    KEPT_NOTE,
    OtherProjectSession,
    RewindError,
    SessionInUse,
    SessionRow,
    UnknownSession,
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
PREVIEW_WIDTH = 60
SESSIONS_HELP = "list, show, rename, delete, rewind and fork this project's sessions"


class _ArgError(Exception):
    pass


class _Parser(PipeParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgError(message)


def parser() -> argparse.ArgumentParser:
    top = _Parser(prog="wave sessions", description=SESSIONS_HELP.capitalize() + ".")
    sub = top.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="this project's sessions, most recent first")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.add_argument(
        "--all", action="store_true", help="every project's sessions, with the project's folder"
    )
    rename = sub.add_parser("rename", help="name a session (shown in lists, --resume NAME)")
    rename.add_argument("id", metavar="ID")
    rename.add_argument("name", metavar="NAME", nargs="+")
    show = sub.add_parser("show", help="a session's numbered user messages")
    show.add_argument("id", metavar="ID")
    show.add_argument("--json", action="store_true", help="print a JSON object")
    delete = sub.add_parser("delete", help="delete a session, its subagents and checkpoints")
    delete.add_argument("id", metavar="ID")
    delete.add_argument("--yes", action="store_true", help="do not ask")
    rewind = sub.add_parser("rewind", help="undo a session's files and/or conversation")
    rewind.add_argument("id", metavar="ID")
    rewind.add_argument("--to", required=True, metavar="N", help="message N, as `show` numbers it")
    rewind.add_argument("--code", action="store_true", help="put the files back")
    rewind.add_argument("--conversation", action="store_true", help="cut the conversation")
    rewind.add_argument(
        "--force", action="store_true", help="overwrite files changed elsewhere too"
    )
    rewind.add_argument(
        "--revert-memory",
        action="store_true",
        help="also revert the extraction runs made since that message",
    )
    fork = sub.add_parser("fork", help="copy a session to a new one; prints the new id")
    fork.add_argument("id", metavar="ID")
    return top


def command_parsers() -> list[tuple[argparse.ArgumentParser, str]]:
    """Each `wave sessions <action>` parser with its one-line help (for `wave --help`)."""
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [(sub.choices[action.dest], action.help or "") for action in sub._choices_actions]


def _one_line(text: str, width: int = PREVIEW_WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _tty() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def _ask(question: str) -> bool:
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


# req: RW4
# req: RW8
# req: FH11
def run_sessions_command(argv: list[str], paths: WavePaths, out: TextIO, err: TextIO) -> int:
    """Run `wave sessions …` (argv without the leading `sessions`). Returns the exit code."""
    try:
        args = parser().parse_args(argv)
    except _ArgError as exc:
        print(f"wave sessions: {exc}", file=err)
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        return _dispatch(args, ProjectSessions(paths), out, err)
    except (UnknownSession, RewindError, ValueError) as exc:
        print(f"wave sessions: {exc}", file=err)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`| head`): main ends the command quietly with 141.
        raise
    except (SessionInUse, OSError) as exc:
        print(f"wave sessions: {exc}", file=err)
        return EXIT_FAILED


def _dispatch(args: argparse.Namespace, store: ProjectSessions, out: TextIO, err: TextIO) -> int:
    if getattr(args, "id", None):
        args.id = store.resolve(args.id)
    if args.action == "list":
        rows = store.all_rows() if args.all else store.rows()
        if args.json:
            print(json.dumps([r.to_json() for r in rows], ensure_ascii=False), file=out)
        elif not rows:
            print("No sessions." if args.all else "No sessions in this project.", file=out)
        for row in [] if args.json else rows:
            print(_row_line(row), file=out)
        return EXIT_OK
    if args.action == "rename":
        name = store.rename(args.id, " ".join(args.name))
        print(f"Session {args.id} is named {name!r}.", file=out)
        return EXIT_OK
    if args.action == "show":
        detail = store.detail(args.id)
        if args.json:
            print(json.dumps(detail.to_json(), ensure_ascii=False), file=out)
            return EXIT_OK
        print(f"Session {detail.id}", file=out)
        for p in detail.messages:
            files = f"  [{len(p.files)} file{'s' * (len(p.files) != 1)}]" if p.files else ""
            print(f"{p.n:>4}. {p.at}  {_one_line(p.text)}{files}", file=out)
        for c in detail.compactions:
            what = f": {c['line']}" if c.get("line") else ""
            print(f"compacted {c['at']}{what}", file=out)
        for agent in detail.subagents:
            print(f"subagent {agent}", file=out)
        return EXIT_OK
    if args.action == "delete":
        store.check(args.id)
        if store.in_use(args.id):
            raise SessionInUse(f"session {args.id} is in use by a running wave")
        if not args.yes and _tty() and not _ask(f"Delete session {args.id}?"):
            print("Not deleted.", file=out)
            return EXIT_FAILED
        store.delete(args.id)
        print(f"Deleted session {args.id}.", file=out)
        return EXIT_OK
    if args.action == "fork":
        print(store.fork(args.id), file=out)
        return EXIT_OK
    return _rewind(args, store, out, err)


def _row_line(row: SessionRow) -> str:
    parent = f"  (from {row.parent[:8]})" if row.parent else ""
    project = f"{row.project}  " if row.project is not None else ""
    name = f"[{row.name}] " if row.name else ""
    return (
        f"{row.id}  {row.last_active}  {row.messages:>4} msgs  {project}"
        f"{name}{_one_line(row.first_prompt) or '(no prompt)'}{parent}"
    )


# req: RW3
# req: RW6
def _rewind(args: argparse.Namespace, store: ProjectSessions, out: TextIO, err: TextIO) -> int:
    store.check(args.id)
    try:
        n = int(args.to)
    except ValueError:
        raise RewindError(f"--to needs a message number (got {args.to!r})") from None
    target = store.point(args.id, n)
    code = args.code or not args.conversation
    conversation = args.conversation or not args.code
    if conversation and store.in_use(args.id):
        raise SessionInUse(f"session {args.id} is in use by a running wave")
    if conversation:
        store.check_conversation(args.id, n)
    root = store.paths.project_root
    status = EXIT_OK
    if code:
        plan = store.plan(args.id, n)
        overwrite: Callable[[Path], bool]
        if args.force:
            overwrite = lambda _path: True  # noqa: E731
        elif _tty():
            overwrite = lambda path: _ask(  # noqa: E731
                f"{display_path(path, root)} was changed since the agent wrote it. Overwrite?"
            )
        else:
            overwrite = lambda _path: False  # noqa: E731
        result = store.apply_code(args.id, plan, overwrite)
        for path in result.restored:
            print(f"restored {display_path(path, root)}", file=out)
        for path in result.removed:
            print(f"removed {display_path(path, root)}", file=out)
        for path in result.outside:
            print(f"left {path}: outside the project, a rewind never writes there", file=err)
        for path in result.left_alone:
            if path in result.outside:
                continue
            print(
                f"left {display_path(path, root)}: changed since the agent wrote it "
                "(--force overwrites)",
                file=err,
            )
        for path in result.lost:
            print(f"cannot restore {display_path(path, root)}: not checkpointed", file=err)
        if result.left_alone or result.lost:
            status = EXIT_FAILED
        print(BASH_NOTE, file=out)
    if conversation:
        runs = store.runs_since(args.id, target)
        kept = store.rewind_conversation(args.id, n)
        print(f"Conversation rewound to before message {n}: {_one_line(target.text)}", file=out)
        print(KEPT_NOTE.format(id=kept.kept_as), file=out)
        if runs:
            _offer_reverts(args, store, [r.id for r in runs], out)
    return status


def _offer_reverts(
    args: argparse.Namespace, store: ProjectSessions, run_ids: list[str], out: TextIO
) -> None:
    listed = ", ".join(run_ids)
    if args.revert_memory or (
        _tty() and _ask(f"Revert the extraction runs made since ({listed})?")
    ):
        for run_id in run_ids:
            result = store.revert(run_id)
            print(f"reverted extraction run {run_id} ({len(result.restored)} files)", file=out)
        return
    print(
        f"Extraction runs made since: {listed} (`wave memory revert ID`, or --revert-memory)",
        file=out,
    )


def apply_fork_session(args: argparse.Namespace, paths: WavePaths) -> str | None:
    """`--fork-session`: continue (`--continue` / `--resume ID`) in a copy; None or a problem."""
    if not args.fork_session:
        return None
    if not (args.continue_last or args.resume):
        return "--fork-session needs --continue or --resume ID"
    store = ProjectSessions(paths)
    try:
        source = store.find(args.resume or None, args.continue_last)
    except UnknownSession as exc:
        return str(exc)
    if source is None:
        return "--fork-session: no session to continue in this project"
    args.resume, args.continue_last = store.fork(source), False
    return None


# req: FH11
def resolve_resume(args: argparse.Namespace, paths: WavePaths) -> tuple[str | None, Path | None]:
    """`--resume ID|PREFIX|NAME` made a full id: (a problem, None), or (None, the folder of
    another project to open it in; None: this one). A script (`-p`) is not moved to another
    project's folder: it is told where the session is."""
    if not args.resume:  # none, or the picker
        return None, None
    try:
        args.resume = ProjectSessions(paths).resolve(args.resume)
    except OtherProjectSession as exc:
        if args.prompt is not None or exc.folder is None:
            return str(exc), None
        args.resume = exc.session_id
        args.resume_notice = f"Session {exc.session_id} is of {exc.folder}: opened there."
        return None, exc.folder
    except UnknownSession as exc:
        return str(exc), None
    return None, None
