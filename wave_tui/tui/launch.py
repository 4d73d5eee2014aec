"""`wave` (no -p): the app at once, its session opened after the first frame; the exit code."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.config.paths import WavePaths
from wave_tui.tui.app import Opened, SessionOpening, make_app

if TYPE_CHECKING:
    from wave_tui.config.settings import SettingsStore
    from wave_tui.session.types import AgentOptions


def agent_options(
    args: argparse.Namespace, workdir: Path, environ: Mapping[str, str] | None
) -> AgentOptions:
    from wave_tui.session.types import AgentOptions

    return AgentOptions(
        environ=environ,
        workdir=workdir,
        model=getattr(args, "model", None),
        permission_mode=getattr(args, "permission_mode", None),
        continue_last=bool(getattr(args, "continue_last", False)),
        resume=getattr(args, "resume", None) or None,
        worktree=getattr(args, "worktree", None),
        bare=bool(getattr(args, "bare", False)),
    )


# req: UX14
def launch(
    args: argparse.Namespace,
    workdir: Path,
    open_session: Callable[[], Opened],
    *,
    ready: Callable[[], None],
) -> int:
    """Run the app. Its first frame shows the chat; `open_session` then runs in a thread
    (settings, memory, tools, the agent: see `open_agent`) and `ready` once it is up."""
    app = make_app(
        None,
        None,
        opening=SessionOpening(WavePaths.for_workdir(workdir), open_session, ready),
        watch_settings=True,
        pick_session=getattr(args, "resume", None) == "",  # `wave --resume` without an id
        startup_notice=getattr(args, "resume_notice", None),  # opened in another project
    )
    app.run()
    reopen = app.command_screens.reopen
    if reopen is not None:
        _reopen_in(reopen.folder, reopen.session_id)
    return app.return_code or 0


# req: FH11
def _reopen_in(folder: Path, session_id: str) -> None:
    """A session of another project was picked in `/resume`: wave starts again in its folder
    (its settings, memory and tools are that project's), resuming it."""
    import os
    import sys

    print(f"wave: opening session {session_id} in {folder}", file=sys.stderr, flush=True)
    os.chdir(folder)
    argv = [sys.executable, "-m", "wave_tui", "--resume", session_id]
    os.execv(sys.executable, argv)


def open_agent(
    args: argparse.Namespace,
    workdir: Path,
    environ: Mapping[str, str] | None = None,
    store: SettingsStore | None = None,
) -> Opened:
    """The agent for `args` behind a session. `environ` overrides the process environment
    (e.g. a local model endpoint); `store`, the settings already read for `workdir` and that
    environment. An agent that cannot start leaves a session without one: the memory browser
    and settings still work."""
    from wave_tui.session.facade import AgentSession, create_session

    try:
        return Opened(create_session(agent_options(args, workdir, environ), store=store))
    except Exception as exc:
        offline = AgentSession.offline(WavePaths.for_workdir(workdir), environ=environ)
        return Opened(offline, startup_error=f"The agent could not start: {exc}")
