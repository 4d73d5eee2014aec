"""`wave` (no -p): build the service and the app, run it, return the exit code."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions
from wave_tui.tui.app import PendingAgent, make_app


def agent_options(
    args: argparse.Namespace, workdir: Path, environ: Mapping[str, str] | None
) -> AgentOptions:
    return AgentOptions(
        environ=environ,
        workdir=workdir,
        model=getattr(args, "model", None),
        permission_mode=getattr(args, "permission_mode", None),
        continue_last=bool(getattr(args, "continue_last", False)),
        resume=getattr(args, "resume", None) or None,
        worktree=getattr(args, "worktree", None),
    )


def launch(
    args: argparse.Namespace,
    workdir: Path,
    *,
    environ: Mapping[str, str] | None = None,
    model_label: str | None = None,
    notice: str | None = None,
    pending: PendingAgent | None = None,
) -> int:
    """Run the app. `environ` overrides the process environment (e.g. a local model endpoint);
    with `pending` the app opens at once and the agent joins when it has started (UX14)."""
    pick_session = getattr(args, "resume", None) == ""  # `wave --resume` without an id
    session: AgentSession
    startup_error = None
    try:
        if pending is not None:
            session = AgentSession.offline(WavePaths.for_workdir(workdir), environ=environ)
        else:
            session = create_session(agent_options(args, workdir, environ))
    except Exception as exc:  # the memory browser and settings still work without an agent
        startup_error = f"The agent could not start: {exc}"
        session = AgentSession.offline(WavePaths.for_workdir(workdir), environ=environ)
    app = make_app(
        None,
        session,
        watch_settings=True,
        startup_error=startup_error,
        startup_notice=notice,
        model_label=model_label,
        pick_session=pick_session,
        pending=pending,
    )
    app.run()
    return app.return_code or 0
