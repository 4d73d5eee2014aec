"""`wave plugin …`: install, enable, update and remove plugins, and manage their marketplaces.

    wave plugin marketplace add SOURCE | list [--json] | remove NAME | update [NAME]
    wave plugin install NAME@MARKET [--scope user|project|local]
    wave plugin uninstall|enable|disable NAME@MARKET [--scope …]
    wave plugin update [NAME@MARKET]
    wave plugin list [--json]

A failure is one `wave: …` line on stderr (exit 1; a usage problem exits 2) and changes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from wave_tui.cli.process import PipeParser

if TYPE_CHECKING:
    from wave_tui.session.facade import PluginAccess

Scope = Literal["user", "project", "local"]

SCOPES = ("user", "project", "local")
HELP = "install, enable and update plugins; add and update their marketplaces"


def _parser() -> argparse.ArgumentParser:
    parser = PipeParser(prog="wave plugin", description=HELP.capitalize())
    parser.add_argument("--workdir", default=None, help="project root (default: current directory)")
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    market = sub.add_parser("marketplace", help="add, list, update or remove marketplaces")
    msub = market.add_subparsers(dest="market_action", required=True, metavar="ACTION")
    msub.add_parser("add", help="add a marketplace (a folder or a git URL)").add_argument("source")
    msub.add_parser("list", help="the known marketplaces").add_argument(
        "--json", action="store_true"
    )
    msub.add_parser("remove", help="forget a marketplace").add_argument("name")
    msub.add_parser("update", help="fetch marketplace listings").add_argument("name", nargs="?")
    for action, text in (
        ("install", "install and enable a plugin"),
        ("uninstall", "remove a plugin"),
        ("enable", "enable an installed plugin"),
        ("disable", "disable an installed plugin"),
    ):
        one = sub.add_parser(action, help=text)
        one.add_argument("plugin", metavar="NAME@MARKET")
        one.add_argument("--scope", choices=SCOPES, default=None)
    sub.add_parser("update", help="update plugins to their market's version").add_argument(
        "plugin", metavar="NAME@MARKET", nargs="?"
    )
    sub.add_parser("list", help="the installed plugins").add_argument("--json", action="store_true")
    return parser


def plugin_parser_help() -> tuple[argparse.ArgumentParser, str]:
    """`wave plugin`'s parser and one-line help, for the command list of `wave --help`."""
    return _parser(), HELP


def run_plugin_command(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    workdir = Path(args.workdir).expanduser() if args.workdir else Path.cwd()
    if not workdir.is_dir():
        return _fail(f"work dir does not exist or is not a folder: {args.workdir}", 2)
    from wave_tui.config.paths import WavePaths
    from wave_tui.session.facade import PluginAccess
    from wave_tui.session.types import PluginError

    access = PluginAccess(WavePaths.for_workdir(workdir))
    try:
        return asyncio.run(_run(access, args, workdir.resolve()))
    except PluginError as exc:
        return _fail(str(exc), 1)
    except BrokenPipeError:
        # The reader went away (`| head`): main ends the command quietly with 141.
        raise
    except OSError as exc:  # a cache or settings folder that cannot be written
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def _fail(message: str, code: int) -> int:
    print(f"wave: {message}", file=sys.stderr, flush=True)
    return code


def _say(line: str) -> None:
    print(line, flush=True)


# req: PG5
async def _run(access: PluginAccess, args: argparse.Namespace, cwd: Path) -> int:
    action = args.action
    if action == "marketplace":
        return await _market(access, args, cwd)
    if action == "list":
        rows = access.installed()
        if args.json:
            _say(json.dumps([r.to_json() for r in rows], indent=2))
        elif not rows:
            _say("No plugins installed.")
        for row in rows if not args.json else []:
            state = "enabled" if row.enabled else "disabled"
            if row.shadowed_by is not None:
                state = f"enabled, not loaded: {row.shadowed_by} has the same name"
            _say(f"{row.name}@{row.marketplace}  {row.version}  {row.scope}  {state}")
        return 0
    if action == "update":
        return await _update(access, args.plugin)
    scope: Scope | None = args.scope
    if action == "install":
        version = await access.install(args.plugin, scope or "user")
        _say(f"Installed {args.plugin} {version} ({scope or 'user'} scope, enabled)")
    elif action == "uninstall":
        await access.uninstall(args.plugin, scope)
        _say(f"Uninstalled {args.plugin}")
    elif action == "enable":
        await access.enable(args.plugin, scope or "user")
        _say(f"Enabled {args.plugin} ({scope or 'user'} scope)")
    else:
        await access.disable(args.plugin, scope or "user")
        _say(f"Disabled {args.plugin} ({scope or 'user'} scope)")
    return 0


async def _update(access: PluginAccess, plugin: str | None) -> int:
    from wave_tui.session.types import PluginError

    ids = [plugin] if plugin else sorted({f"{r.name}@{r.marketplace}" for r in access.installed()})
    failed = 0
    for plugin_id in ids:
        try:
            old, new = await access.update(plugin_id)
        except PluginError as exc:
            if plugin:
                raise
            _fail(str(exc), 1)
            failed += 1
            continue
        _say(f"{plugin_id}: {old} → {new}" if old != new else f"{plugin_id}: {new} is the latest")
    if not ids:
        _say("No plugins installed.")
    return 1 if failed else 0


async def _market(access: PluginAccess, args: argparse.Namespace, cwd: Path) -> int:
    from wave_tui.session.types import PluginError

    action = args.market_action
    if action == "add":
        name = await access.add_market(args.source, cwd)
        _say(f"Added marketplace {name}")
    elif action == "remove":
        await access.remove_market(args.name)
        _say(f"Removed marketplace {args.name}")
    elif action == "list":
        rows = access.markets()
        if args.json:
            _say(json.dumps([{"name": r.name, "source": r.source, "type": r.kind} for r in rows]))
        elif not rows:
            _say("No marketplaces. wave plugin marketplace add SOURCE adds one.")
        for row in rows if not args.json else []:
            _say(f"{row.name}  {row.kind}  {row.source}" + ("" if row.known else "  (not fetched)"))
    else:
        names = [args.name] if args.name else [r.name for r in access.markets() if r.known]
        failed = 0
        for name in names:
            try:
                count = await access.update_market(name)
            except PluginError as exc:
                if args.name:
                    raise
                _fail(str(exc), 1)
                failed += 1
                continue
            _say(f"Updated marketplace {name} ({count} plugins)")
        return 1 if failed else 0
    return 0
