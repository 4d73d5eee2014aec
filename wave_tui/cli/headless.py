"""`wave -p`: one turn, no keyboard, final text on stdout, one clear line on stderr on failure."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from wave_tui.agent import events as ev
from wave_tui.agent.session import AgentOptions, create_session
from wave_tui.cli.local import LocalUnavailable, prepare_local_endpoint
from wave_tui.llm.local_server import LocalModelError


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


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
    )
    try:
        session = create_session(options)
        session.subscribe(_print_notices)
        session.start()
    except (FileNotFoundError, ValueError) as exc:
        _stderr(f"wave: {exc}")
        return 2
    try:
        result = await session.run_turn(prompt)
    finally:
        await session.close()
    if result.status == "error":
        code = 2 if result.error and "no model endpoint is configured" in result.error else 1
        _stderr(f"wave: {result.error}")
        return code
    if result.status == "aborted":
        _stderr("wave: the turn was aborted")
        return 130
    sys.stdout.write(result.text)
    if not result.text.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()
    return 0


def _print_notices(event: ev.AgentEvent) -> None:
    if isinstance(event, ev.Notice) and event.kind in ("settings", "warning"):
        _stderr(f"wave: warning: {event.text}")
