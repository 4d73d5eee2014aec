"""`wave --attach ID`: the app on a `wave daemon` session. The conversation runs in the daemon;
the app shows it, streams its turn, sends what is typed, answers its questions; quitting the
app detaches (the session goes on). An unknown session is one line and exit 1."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wave_tui.cli.process import startup_finished
from wave_tui.config.paths import WavePaths, home_dir
from wave_tui.session.daemon.client import DaemonUnavailable, connect

EXIT_FAILED = 1


# req: DM2
def run_attach(args: argparse.Namespace) -> int:
    daemon = WavePaths.for_workdir(home_dir())
    session_id = str(args.attach)
    try:
        with connect(daemon, start=False) as client:
            answer = client.request("status", id=session_id, lines=0)
    except DaemonUnavailable as exc:
        return _fail(str(exc))
    if not answer.get("ok"):
        return _fail(str(answer.get("error", "the daemon refused")))
    workdir = Path(str(answer["session"]["workdir"]))  # its settings are that project's

    from wave_tui.session.facade import attach_session
    from wave_tui.tui.app import Opened
    from wave_tui.tui.launch import launch

    project = WavePaths.for_workdir(workdir)
    return launch(
        args,
        workdir,
        lambda: Opened(attach_session(session_id, project, daemon)),
        ready=startup_finished,
    )


def _fail(message: str) -> int:
    print(f"wave: {message}", file=sys.stderr, flush=True)
    return EXIT_FAILED
