"""`wave -p`: one turn, no keyboard, final text on stdout, one clear line on stderr on failure.

`--output-format json` prints one result object when the run ends; `stream-json` prints one JSON
object per line as it happens (init, each message as it completes, the result). A prompt that is
a custom command or skill (`/name args`) is expanded through the command registry first.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from wave_tui.agent import events as ev
from wave_tui.cli.output import OutputFormat, ScriptOutput
from wave_tui.cli.process import EXIT_CLOSED_PIPE, output_closed, startup_finished
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import BARE_SCOPES, SCOPES, SettingsStore
from wave_tui.session.facade import create_session, prepare_local_endpoint
from wave_tui.session.types import AgentOptions, LocalModelError, LocalUnavailable, RunReport

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM
PIPED_MAX_BYTES = 1 << 20  # 1 MiB of piped text goes to the model; the rest is read and dropped
PIPED_CUT_NOTE = "[standard input was cut at 1 MiB; the rest was not sent]"
_DRAIN_CHUNK = 1 << 16


def _stderr(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except BrokenPipeError:  # stderr's reader has gone (`2>&1 | head`): say nothing more
        output_closed()


@record
class PipedText:
    text: str
    cut: bool  # there was more than PIPED_MAX_BYTES


class PipedReader:
    """Standard input read to its end on a thread of its own, while the session starts: the
    event loop never waits on the pipe. The thread is a daemon, so a writer that never closes
    the pipe cannot keep wave from exiting; what lies past PIPED_MAX_BYTES is read and
    dropped, so the writer finishes instead of blocking on a full pipe."""

    def __init__(self, stream: BinaryIO) -> None:
        loop = asyncio.get_running_loop()
        self._result: asyncio.Future[PipedText | None] = loop.create_future()
        self._thread = threading.Thread(
            target=self._read, args=(stream, loop), name="wave-stdin", daemon=True
        )
        self._thread.start()

    def _read(self, stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> None:
        try:
            data = stream.read(PIPED_MAX_BYTES + 1) or b""
        except (OSError, ValueError):
            data = b""
        cut = len(data) > PIPED_MAX_BYTES
        # Cut on a character boundary: an incomplete UTF-8 sequence at the end is left out.
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text = decoder.decode(data[:PIPED_MAX_BYTES], final=not cut)
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
            loop.call_soon_threadsafe(self._deliver, PipedText(text, cut))
        while cut:
            try:
                cut = bool(stream.read(_DRAIN_CHUNK))
            except (OSError, ValueError):
                return

    def _deliver(self, piped: PipedText | None) -> None:
        if not self._result.done():
            self._result.set_result(piped)

    def stop(self) -> None:
        """Stop waiting (SIGTERM): `text()` returns None."""
        self._deliver(None)

    async def text(self) -> PipedText | None:
        """The piped text once standard input ended (or 1 MiB of it arrived)."""
        return await self._result


# req: CV7
def with_piped_text(prompt: str, piped: PipedText) -> str:
    """The prompt, then the piped text (and a note when it was cut); an empty pipe adds nothing."""
    if not piped.text.strip():
        return prompt
    parts = [prompt, piped.text.rstrip("\n")]
    if piped.cut:
        parts.append(PIPED_CUT_NOTE)
    return "\n\n".join(parts)


# req: AC1
async def run_headless(
    args: argparse.Namespace, workdir: Path, prompt: str, piped: BinaryIO | None = None
) -> int:
    """One headless turn on `prompt`; `piped` (standard input, when it is a pipe or a file) is
    read meanwhile and follows the prompt in the user message."""
    reader = PipedReader(piped) if piped is not None else None
    # One read of the settings serves the local-model decision and, when no local model
    # changes the environment, the agent too.
    # Running headless in a folder is the invoker's trust in its permissions (HR11).
    store = SettingsStore(
        WavePaths.for_workdir(workdir),
        trust="invoker",
        scopes=BARE_SCOPES if getattr(args, "bare", False) else SCOPES,
    )
    try:
        local = prepare_local_endpoint(args, workdir, settings=store.current())
    except LocalModelError as exc:
        _stderr(f"wave: {exc}")
        return exc.exit_code if isinstance(exc, LocalUnavailable) else 1
    with local or contextlib.nullcontext():
        if local is not None and local.banner:
            _stderr(local.banner)
        if local is not None:
            return await _run_turn(args, workdir, prompt, local.environ, None, reader)
        return await _run_turn(args, workdir, prompt, None, store, reader)


# req: MC2
# req: CS3
# req: CV12
# req: FH2
async def _run_turn(
    args: argparse.Namespace,
    workdir: Path,
    prompt: str,
    environ: dict[str, str] | None,
    store: SettingsStore | None,
    reader: PipedReader | None,
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
        worktree=getattr(args, "worktree", None),
        bare=bool(getattr(args, "bare", False)),
    )
    fmt: OutputFormat = getattr(args, "output_format", "text") or "text"
    started = time.monotonic()
    try:
        session = create_session(options, store=store)
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
    out = ScriptOutput(fmt, sys.stdout, on_closed=session.abort, started=started)
    session.subscribe(out.on_event)
    terminated = asyncio.Event()

    def terminate() -> None:
        terminated.set()
        session.abort()
        if reader is not None:
            reader.stop()

    code: int | None = None  # set once the run's result is out
    with _on_sigterm(terminate):
        try:
            problem = await session.enter_start_worktree()
            if problem is not None:
                _stderr(f"wave: {problem}")
                return EXIT_FAILED
            await session.wait_tools_started()
            out.init(session.run_info())
            if reader is not None:
                prompt = await _with_stdin(prompt, reader)
            # Slash commands go through the registry here too.
            stopped = terminated.is_set() or out.closed  # nobody left to answer: no turn
            report = None if stopped else await session.run(prompt)
            if report is not None and not terminated.is_set() and not out.closed:
                # The answer is out and flushed before close() waits for the extraction fork
                # (C4: the process still exits only after it).
                code = _finish(out, report)
        finally:
            await session.close()  # ends background process groups too (BG4)
    if terminated.is_set():
        _stderr("wave: terminated; the turn was aborted and background commands ended")
        return EXIT_TERMINATED
    if out.closed and code in (None, EXIT_OK):
        return EXIT_CLOSED_PIPE  # the reader went away: the turn was stopped, nothing said
    return EXIT_FAILED if code is None else code


async def _with_stdin(prompt: str, reader: PipedReader) -> str:
    piped = await reader.text()
    if piped is None:  # terminated while waiting: no turn runs
        return prompt
    if piped.cut:
        _stderr("wave: warning: standard input is over 1 MiB; only its first MiB is sent")
    return with_piped_text(prompt, piped)


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
    if report.status == "error":
        code = (
            EXIT_USAGE
            if report.error and "no model endpoint is configured" in report.error
            else EXIT_FAILED
        )
        _stderr(f"wave: {report.error}")
        out.result(report)
        return code
    if report.status == "aborted":
        _stderr("wave: the turn was aborted")
        out.result(report)
        return EXIT_INTERRUPTED
    if report.stop == "max_turns":
        _stderr(f"wave: stopped after {report.num_turns} model request(s) (--max-turns)")
        out.result(report)
        return EXIT_FAILED
    if report.stop == "max_rounds":  # the per-turn request cap: said, and not a success
        _stderr(f"wave: {report.error}")
        out.result(report)
        return EXIT_FAILED
    out.result(report)
    return EXIT_OK


# req: AC3
def _print_notices(event: ev.AgentEvent) -> None:
    if isinstance(event, ev.Notice) and event.kind in ("settings", "warning", "cut"):
        _stderr(f"wave: warning: {event.text}")
    elif isinstance(event, ev.Notice) and event.kind == "rate-limit":  # not silent
        _stderr(f"wave: {event.text}")
