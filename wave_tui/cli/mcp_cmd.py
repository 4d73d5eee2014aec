"""`wave mcp list|get|add|remove|auth|logout`: MCP servers from the command line (MO6, MO2).

    wave mcp add NAME [-e KEY=VALUE]… [--scope local|project|user] -- CMD [ARGS…]
    wave mcp add --transport http|sse NAME URL [-H "Name: value"]… [--scope …]
`add` writes the local scope (`.wave/settings.local.json`) unless `--scope` says otherwise;
`--scope project` writes `.mcp.json`. Exit codes: 0 done, 1 failed, 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TextIO

from wave_tui.cli.process import PipeParser
from wave_tui.config.paths import WavePaths, display_path
from wave_tui.session.facade import (
    ADD_SCOPES,
    McpAdminError,
    ServerEntry,
    ServerHealth,
    add_server,
    authorization_stored,
    authorize,
    configured,
    find,
    logout,
    new_entry,
    parse_pairs,
    remove_server,
    server_health,
)

HELP = "MCP servers: list, get, add, remove, auth, logout"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _ArgError(Exception):
    pass


class _Parser(PipeParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgError(message)


def mcp_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="wave mcp", description=HELP.capitalize() + ".")
    parser.add_argument("--workdir", default=None, help="project root (default: current directory)")
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser(
        "list", help="every configured server: scope, state, tools, last error (connects)"
    )
    listing.add_argument("--json", action="store_true", help="one JSON array")
    sub.add_parser("get", help="one server's configuration").add_argument("name", metavar="NAME")
    add = sub.add_parser(
        "add",
        help="add a server: NAME -- CMD ARGS (stdio) or --transport http NAME URL",
        usage="wave mcp add [--transport stdio|http|sse] [--scope local|project|user] "
        "[-e KEY=VALUE] [-H 'Name: value'] NAME (-- CMD [ARGS...] | URL)",
    )
    add.add_argument("--transport", "-t", choices=["stdio", "http", "sse"], default="stdio")
    add.add_argument("--scope", "-s", choices=ADD_SCOPES, default="local")
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("-H", "--header", action="append", default=[], metavar="'Name: value'")
    add.add_argument("name", metavar="NAME")
    add.add_argument("target", nargs="*", metavar="CMD|URL")
    remove = sub.add_parser("remove", help="remove a server (from the one scope that has it)")
    remove.add_argument("name", metavar="NAME")
    remove.add_argument("--scope", "-s", choices=ADD_SCOPES, default=None)
    sub.add_parser("auth", help="authorize an HTTP server (OAuth)").add_argument(
        "name", metavar="NAME"
    )
    sub.add_parser("logout", help="forget an HTTP server's tokens").add_argument(
        "name", metavar="NAME"
    )
    return parser


def mcp_parser_help() -> tuple[argparse.ArgumentParser, str]:
    return mcp_parser(), HELP


def _target(entry: ServerEntry) -> str:
    config = entry.config
    if config.kind == "stdio":
        return " ".join([config.command, *config.args])
    return config.url


def _health_text(health: ServerHealth | None) -> str:
    if health is None:
        return "unknown"
    if health.state == "ready":
        return f"ready, {health.tools} tool{'s' if health.tools != 1 else ''}"
    return f"{health.state}: {health.last_error}" if health.last_error else health.state


# req: MA9
def _list(paths: WavePaths, out: TextIO, err: TextIO, *, as_json: bool) -> int:
    """Each server with its configuration and, connected once, its state and tools."""
    entries, problems = configured(paths)
    for line in problems:
        print(f"wave: {line}", file=err)
    found = {h.name: h for h in asyncio.run(server_health(paths, entries))}
    if as_json:
        rows = [
            {
                "name": e.name,
                "type": e.config.kind,
                "scope": e.scope,
                "target": _target(e),
                "state": found[e.name].state if e.name in found else "unknown",
                "tools": found[e.name].tools if e.name in found else 0,
                "lastError": found[e.name].last_error if e.name in found else None,
            }
            for e in entries
        ]
        print(json.dumps(rows, indent=2), file=out)
        return EXIT_OK
    if not entries:
        print("No MCP servers configured (wave mcp add NAME -- CMD, or .mcp.json).", file=out)
        return EXIT_OK
    for entry in entries:
        extra = ", authorized" if authorization_stored(paths, entry) else ""
        where = f"({entry.config.kind}, {entry.scope}{extra})"
        health = _health_text(found.get(entry.name))
        print(f"{entry.name}: {_target(entry)}  {where}  {health}", file=out)
    return EXIT_OK


def _get(paths: WavePaths, name: str, out: TextIO) -> int:
    entry = find(paths, name)
    config = entry.config
    lines = [
        entry.name,
        f"  scope: {entry.scope} ({display_path(entry.file, paths.project_root, paths.home)})",
        f"  type: {config.kind}",
    ]
    if config.kind == "stdio":
        lines.append(f"  command: {config.command}")
        if config.args:
            lines.append(f"  args: {' '.join(config.args)}")
        raw_env = entry.raw.get("env")
        for key, value in raw_env.items() if isinstance(raw_env, dict) else ():
            lines.append(f"  env: {key}={value}")
    else:
        lines.append(f"  url: {config.url}")
        # Header values often carry credentials: the names only.
        lines += [f"  header: {key}: ***" for key in config.headers]
        stored = "stored" if authorization_stored(paths, entry) else "none (wave mcp auth NAME)"
        lines.append(f"  authorization: {stored}")
    print("\n".join(lines), file=out)
    return EXIT_OK


def _add(args: argparse.Namespace, paths: WavePaths, out: TextIO) -> int:
    env = parse_pairs(args.env, "=", "-e")
    headers = parse_pairs(args.header, ":", "-H")
    entry = new_entry(args.transport, args.target, env, headers)
    path = add_server(paths, args.name, entry, args.scope)
    where = display_path(path, paths.project_root, paths.home)
    print(
        f"Added {args.transport} MCP server {args.name!r} to the {args.scope} scope ({where})",
        file=out,
    )
    if args.scope == "project":
        print("Project servers start once you trust them in the app.", file=out)
    return EXIT_OK


def _remove(args: argparse.Namespace, paths: WavePaths, out: TextIO) -> int:
    scope, path = remove_server(paths, args.name, args.scope)
    where = display_path(path, paths.project_root, paths.home)
    print(f"Removed MCP server {args.name!r} from the {scope} scope ({where})", file=out)
    return EXIT_OK


def _auth(name: str, paths: WavePaths, out: TextIO) -> int:
    def say(line: str) -> None:
        print(line, file=out, flush=True)

    try:
        ok, line = asyncio.run(authorize(paths, name, say))
    except KeyboardInterrupt:
        print(f"wave: authorization of {name!r} cancelled; nothing stored", file=sys.stderr)
        return 130
    if not ok:
        raise McpAdminError(line)
    print(line, file=out)
    return EXIT_OK


def _logout(name: str, paths: WavePaths, out: TextIO) -> int:
    removed = asyncio.run(logout(paths, name))
    text = "authorization removed" if removed else "no stored authorization"
    print(f"MCP server {name!r}: {text}", file=out)
    return EXIT_OK


def run_mcp_command(  # req: MO6
    argv: list[str], out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    # argparse's sub-commands mishandle `--`: what follows it is the server's command, as is.
    command: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1 :]
    try:
        args = mcp_parser().parse_args(argv)
        if command and args.action != "add":
            raise _ArgError("`-- CMD ARGS` is for wave mcp add")
        if command:
            args.target = [*args.target, *command]
    except _ArgError as exc:
        print(f"wave mcp: {exc}", file=err)
        return EXIT_USAGE
    workdir = Path(args.workdir).expanduser() if args.workdir else Path.cwd()
    if not workdir.is_dir():
        print(f"wave: work dir does not exist or is not a folder: {args.workdir}", file=err)
        return EXIT_USAGE
    paths = WavePaths.for_workdir(workdir.resolve())
    try:
        if args.action == "list":
            return _list(paths, out, err, as_json=args.json)
        if args.action == "get":
            return _get(paths, args.name, out)
        if args.action == "add":
            return _add(args, paths, out)
        if args.action == "remove":
            return _remove(args, paths, out)
        if args.action == "auth":
            return _auth(args.name, paths, out)
        return _logout(args.name, paths, out)
    except McpAdminError as exc:
        print(f"wave: {exc}", file=err)
        return EXIT_FAILED
