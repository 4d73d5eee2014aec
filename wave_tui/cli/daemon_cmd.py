"""`wave daemon …`: sessions without a UI that keep generating after the client disconnects.

`create` starts the user's daemon on demand and prints the new session's id; `send` returns at
once (`--wait` waits); `status` is one snapshot; `wait` blocks until the session is idle (0),
waits for approval (3), or failed or was destroyed (1); `respond`, `abort`, `list`, `destroy`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from wave_tui.cli.process import PipeParser
from wave_tui.config.modes import PERMISSION_MODES
from wave_tui.config.paths import WavePaths
from wave_tui.session.daemon.client import DaemonClient, DaemonUnavailable, connect
from wave_tui.session.daemon.protocol import WAIT_APPROVAL, WAIT_FAILED, WAIT_IDLE

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
DAEMON_HELP = "background sessions: create, send, status, wait, respond, abort, list, destroy"
_WAIT_CODES = {"idle": WAIT_IDLE, "waiting": WAIT_APPROVAL, "error": WAIT_FAILED}


def daemon_parser() -> argparse.ArgumentParser:
    parser = PipeParser(prog="wave daemon", description=DAEMON_HELP.capitalize())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    create = sub.add_parser("create", help="a new session (prints its id)")
    create.add_argument(
        "--worktree",
        metavar="NAME",
        nargs="?",
        const="",
        default=None,
        help="work in git worktree .wave/worktrees/NAME (no NAME: a new one)",
    )
    create.add_argument("--mode", choices=PERMISSION_MODES, default="default")
    create.add_argument("--workdir", default=None, help="project root (default: current directory)")
    send = sub.add_parser("send", help="give a session a message (returns at once)")
    send.add_argument("id")
    send.add_argument("text", nargs="+")
    send.add_argument("--wait", action="store_true", help="then wait as `wait` does")
    status = sub.add_parser("status", help="a session's state and its last messages")
    status.add_argument("id")
    status.add_argument("--lines", type=int, default=1, metavar="N", help="messages (0: none)")
    wait = sub.add_parser("wait", help="until idle (0), waiting for approval (3), failed (1)")
    wait.add_argument("id")
    wait.add_argument(
        "--from-busy", action="store_true", help="until what was sent last has had its turn"
    )
    wait.add_argument("--lines", type=int, default=1, metavar="N")
    respond = sub.add_parser("respond", help="answer the waiting permission request")
    respond.add_argument("id")
    answer = respond.add_mutually_exclusive_group(required=True)
    answer.add_argument("--allow", action="store_true")
    answer.add_argument("--deny", action="store_true")
    respond.add_argument("--mode", choices=PERMISSION_MODES, default=None)
    abort = sub.add_parser("abort", help="stop the running turn and drop queued messages")
    abort.add_argument("id")
    listing = sub.add_parser("list", help="the daemon's sessions")
    listing.add_argument("--json", action="store_true")
    destroy = sub.add_parser("destroy", help="end a session")
    destroy.add_argument("id")
    destroy.add_argument("--remove-worktree", action="store_true")
    sub.add_parser("serve", help=argparse.SUPPRESS)
    return parser


def daemon_parser_help() -> tuple[argparse.ArgumentParser, str]:
    return daemon_parser(), DAEMON_HELP


# req: DM1
def run_daemon_command(argv: list[str], paths: WavePaths, out: TextIO, err: TextIO) -> int:
    args = daemon_parser().parse_args(argv)
    if args.command == "serve":
        import asyncio

        from wave_tui.session.daemon.server import serve

        return asyncio.run(serve(paths))
    if args.command == "create":
        problem = _create_problem(args)
        if problem is not None:
            print(f"wave daemon: {problem}", file=err)
            return EXIT_USAGE
    try:
        with connect(paths, start=args.command == "create") as client:
            return _run(args, client, out, err)
    except DaemonUnavailable as exc:
        print(f"wave daemon: {exc}", file=err)
        return EXIT_FAILED


def _create_problem(args: argparse.Namespace) -> str | None:
    raw = Path(args.workdir).expanduser() if args.workdir else Path.cwd()
    if not raw.is_dir():
        return f"work dir does not exist or is not a folder: {raw}"
    args.workdir = str(raw.resolve())
    if args.worktree:  # "" (no NAME): the daemon names a new one
        from wave_tui.session.facade import worktree_name_problem

        return worktree_name_problem(args.worktree)
    return None


def _run(args: argparse.Namespace, client: DaemonClient, out: TextIO, err: TextIO) -> int:
    command = args.command
    if command == "create":
        answer = client.request(
            "create", workdir=args.workdir, worktree=args.worktree, mode=args.mode
        )
    elif command == "send":
        answer = client.request("send", id=args.id, text=" ".join(args.text))
        if answer.get("ok") and args.wait:
            answer = client.request("wait", id=args.id, from_busy=True, lines=1)
            return _waited(answer, out, err)
    elif command == "wait":
        answer = client.request("wait", id=args.id, from_busy=args.from_busy, lines=args.lines)
        return _waited(answer, out, err)
    elif command == "status":
        answer = client.request("status", id=args.id, lines=max(args.lines, 0))
    elif command == "respond":
        answer = client.request("respond", id=args.id, allow=args.allow, mode=args.mode)
    elif command == "destroy":
        answer = client.request("destroy", id=args.id, remove_worktree=args.remove_worktree)
    else:
        answer = client.request(command, id=getattr(args, "id", None))
    if not answer.get("ok"):
        print(f"wave daemon: {answer.get('error', 'failed')}", file=err)
        return EXIT_FAILED
    if command == "create":
        print(answer["session"]["id"], file=out)
    elif command == "list":
        _print_list(answer["sessions"], out, as_json=args.json)
    elif command == "status":
        _print_snapshot(answer["session"], out)
    return EXIT_OK


def _waited(answer: dict[str, Any], out: TextIO, err: TextIO) -> int:
    if not answer.get("ok"):
        print(f"wave daemon: {answer.get('error', 'failed')}", file=err)
        return EXIT_FAILED
    if answer.get("destroyed"):
        print("wave daemon: the session was destroyed while waiting", file=err)
        return WAIT_FAILED
    session = answer["session"]
    _print_snapshot(session, out)
    return _WAIT_CODES.get(session["state"], WAIT_FAILED)


def status_line(session: dict[str, Any]) -> str:
    parts = [session["id"], session["state"], f"mode={session['mode']}"]
    if session.get("worktree"):
        parts.append(f"worktree={session['worktree']}")
    if session.get("queued"):
        parts.append(f"queued={session['queued']}")
    return "  ".join(parts)


def _print_snapshot(session: dict[str, Any], out: TextIO) -> None:
    print(status_line(session), file=out)
    if session.get("error"):
        print(f"error: {session['error']}", file=out)
    if session.get("approval"):
        print(session["approval"], file=out)
    for message in session.get("messages", []):
        more = " (generating)" if message.get("partial") else ""
        print(f"[{message['role']}{more}] {message['text']}", file=out)


def _print_list(sessions: list[dict[str, Any]], out: TextIO, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(sessions, indent=2), file=out)
        return
    for session in sessions:
        print(f"{status_line(session)}  {session['workdir']}", file=out)


def main_entry(argv: list[str]) -> int:
    """`wave daemon …` from `wave`'s dispatch."""
    from wave_tui.config.paths import home_dir

    return run_daemon_command(argv, WavePaths.for_workdir(home_dir()), sys.stdout, sys.stderr)
