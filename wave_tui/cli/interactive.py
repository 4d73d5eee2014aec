"""`wave` with no -p: the full-screen Textual app (on a local model when asked or nothing else is
configured). The chat shows at once; the settings, then the agent, come after the first frame,
and a local model starts after that with progress shown (UX14)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.cli.process import startup_finished

if TYPE_CHECKING:
    from wave_tui.session.types import AgentService, LocalEndpoint, LocalPlan
    from wave_tui.tui.app import Opened, PendingAgent, Progress


def run_interactive(args: argparse.Namespace, workdir: Path) -> int:
    from wave_tui.tui.launch import launch

    started: list[LocalEndpoint] = []
    try:
        return launch(args, workdir, lambda: _open(args, workdir, started), ready=startup_finished)
    finally:
        for endpoint in started:
            endpoint.close()


# req: UX14
def _open(args: argparse.Namespace, workdir: Path, started: list[LocalEndpoint]) -> Opened:
    """In a thread, after the first frame: the settings say whether a local model is wanted;
    without one, the agent; with one, a session without an agent until the model is up."""
    from wave_tui.config.paths import WavePaths
    from wave_tui.config.settings import BARE_SCOPES, SCOPES, SettingsStore
    from wave_tui.session.facade import AgentSession, plan_local_endpoint
    from wave_tui.session.types import LocalModelError, LocalUnavailable
    from wave_tui.tui.app import Opened, StartupFailed
    from wave_tui.tui.launch import open_agent

    # One read of the settings for the local-model decision and, without one, the agent.
    scopes = BARE_SCOPES if getattr(args, "bare", False) else SCOPES  # `--bare`: the user's
    store = SettingsStore(WavePaths.for_workdir(workdir), scopes=scopes)
    try:
        plan = plan_local_endpoint(args, workdir, settings=store.current())
    except LocalModelError as exc:
        code = exc.exit_code if isinstance(exc, LocalUnavailable) else 1
        raise StartupFailed(f"wave: {exc}", code) from exc
    if plan is None:
        return open_agent(args, workdir, store=store)
    offline = AgentSession.offline(store.paths, environ=plan.environ)
    pending = _pending_local(args, workdir, plan, started)
    return Opened(offline, model_label=plan.status_label, pending=pending)


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
