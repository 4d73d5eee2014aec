"""`wave -p`: one turn, no keyboard, final text on stdout, one clear line on stderr on failure.

`--output-format json` prints one result object when the run ends; `stream-json` prints one JSON
object per line as it happens (init, each message as it completes, the result). A prompt that is
a custom command or skill (`/name args`) is expanded through the command registry first.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from wave_tui.agent import events as ev
from wave_tui.cli.main import startup_finished
from wave_tui.cli.output import OutputFormat, RunReport, ScriptOutput
from wave_tui.session.facade import (
    AgentOptions,
    LocalModelError,
    LocalUnavailable,
    create_session,
    prepare_local_endpoint,
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# req: AC1
async def run_headless(args: argparse.Namespace, workdir: Path, prompt: str) -> int:
    try:
        local = prepare_local_endpoint(args, workdir)
    except LocalModelError as exc:
        _stderr(f"wave: {exc}")
        return exc.exit_code if isinstance(exc, LocalUnavailable) else 1
    with local or contextlib.nullcontext():
        if local is not None and local.banner:
            _stderr(local.banner)
        return await _run_turn(args, workdir, prompt, local.environ if local else None)


async def _run_turn(
    args: argparse.Namespace, workdir: Path, prompt: str, environ: dict[str, str] | None
) -> int:
    options = AgentOptions(
        workdir=workdir,
        model=args.model,
        permission_mode=args.permission_mode,
        continue_last=args.continue_last,
        resume=args.resume,
        headless=True,
        environ=environ,
        allowed_tools=tuple(getattr(args, "allowed_tools", ()) or ()),
        disallowed_tools=tuple(getattr(args, "disallowed_tools", ()) or ()),
        append_system_prompt=getattr(args, "append_system_prompt", None),
        max_turns=getattr(args, "max_turns", None),
    )
    fmt: OutputFormat = getattr(args, "output_format", "text") or "text"
    started = time.monotonic()
    try:
        session = create_session(options)
    except (FileNotFoundError, ValueError) as exc:
        _stderr(f"wave: {exc}")
        return EXIT_USAGE
    session.subscribe(_print_notices)
    try:
        session.start()
    except (FileNotFoundError, ValueError) as exc:
        await session.close()  # nothing it owns may outlive the run
        _stderr(f"wave: {exc}")
        return EXIT_USAGE
    startup_finished()
    service = session.service
    assert service is not None  # create_session always builds one; the facade's type allows none
    out = ScriptOutput(fmt, sys.stdout)
    session.subscribe(out.on_event)
    terminated = asyncio.Event()

    def terminate() -> None:
        terminated.set()
        session.abort()

    code = EXIT_FAILED
    with _on_sigterm(terminate):
        try:
            await session.wait_tools_started()  # req: MC2
            out.init(service)
            # Slash commands go through the registry here too.
            result = await session.run_turn(prompt)  # req: CS3
            if not terminated.is_set():
                report = RunReport(result, service.session_id, service.model_requests, started)
                # The answer is out and flushed before close() waits for the extraction fork
                # (C4: the process still exits only after it).
                code = _finish(out, report)
        finally:
            await session.close()  # ends background process groups too (BG4)
    if terminated.is_set():
        _stderr("wave: terminated; the turn was aborted and background commands ended")
        return EXIT_TERMINATED
    return code


# req: BG4
@contextlib.contextmanager
def _on_sigterm(handler: Callable[[], None]) -> Iterator[None]:
    """SIGTERM aborts the turn and lets cleanup run (no orphaned background commands)."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, handler)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or Windows
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


# req: AC5
def _finish(out: ScriptOutput, report: RunReport) -> int:
    result = report.result
    if result.status == "error":
        code = (
            EXIT_USAGE
            if result.error and "no model endpoint is configured" in result.error
            else EXIT_FAILED
        )
        _stderr(f"wave: {result.error}")
        out.result(report)
        return code
    if result.status == "aborted":
        _stderr("wave: the turn was aborted")
        out.result(report)
        return EXIT_INTERRUPTED
    if result.stop == "max_turns":
        _stderr(f"wave: stopped after {report.num_turns} model request(s) (--max-turns)")
        out.result(report)
        return EXIT_FAILED
    if result.stop == "max_rounds":  # the per-turn request cap: said, and not a success
        _stderr(f"wave: {result.error}")
        out.result(report)
        return EXIT_FAILED
    out.result(report)
    return EXIT_OK


def _print_notices(event: ev.AgentEvent) -> None:
    if isinstance(event, ev.Notice) and event.kind in ("settings", "warning", "cut"):
        _stderr(f"wave: warning: {event.text}")
    elif isinstance(event, ev.Notice) and event.kind == "rate-limit":  # req: AC3 (not silent)
        _stderr(f"wave: {event.text}")
