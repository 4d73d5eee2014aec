"""`wave` with no -p: the full-screen Textual app (on a local model when asked or nothing else is
configured). The local model starts after the first frame, with progress shown (UX14)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wave_tui.session.types import AgentService, LocalEndpoint, LocalPlan
    from wave_tui.tui.app import PendingAgent, Progress


def run_interactive(args: argparse.Namespace, workdir: Path) -> int:
    from wave_tui.session.facade import plan_local_endpoint
    from wave_tui.session.types import LocalModelError, LocalUnavailable
    from wave_tui.tui.launch import launch

    try:
        plan = plan_local_endpoint(args, workdir)
    except LocalModelError as exc:
        print(f"wave: {exc}", file=sys.stderr, flush=True)
        return exc.exit_code if isinstance(exc, LocalUnavailable) else 1
    if plan is None:
        return launch(args, workdir)
    started: list[LocalEndpoint] = []
    try:
        return launch(
            args,
            workdir,
            environ=plan.environ,
            model_label=plan.status_label,
            pending=_pending_local(args, workdir, plan, started),
        )
    finally:
        for endpoint in started:
            endpoint.close()


# req: UX14
def _pending_local(
    args: argparse.Namespace, workdir: Path, plan: LocalPlan, started: list[LocalEndpoint]
) -> PendingAgent:
    from wave_tui.session.facade import create_service
    from wave_tui.tui.app import PendingAgent
    from wave_tui.tui.launch import agent_options

    def start(progress: Progress) -> tuple[AgentService, str | None]:
        if plan.first_use():
            progress("assembling the bundled local model (first run only, ~250 MB)…")
        endpoint = plan.start()
        started.append(endpoint)
        progress(f"the local model {plan.model_name} is up; loading the agent…")
        service = create_service(agent_options(args, workdir, endpoint.environ))
        return service, endpoint.banner

    return PendingAgent(f"starting the local model {plan.model_name}…", start)
