"""`wave` (no -p): build the service and the app, run it, return the exit code."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from wave_tui.agent.factory import create_service
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore
from wave_tui.tools.base import system_clock
from wave_tui.tui.app import make_app


def launch(
    args: argparse.Namespace,
    workdir: Path,
    *,
    environ: Mapping[str, str] | None = None,
    model_label: str | None = None,
    notice: str | None = None,
) -> int:
    """Run the app. `environ` overrides the process environment (e.g. a local model endpoint)."""
    options = AgentOptions(
        environ=environ,
        workdir=workdir,
        model=getattr(args, "model", None),
        permission_mode=getattr(args, "permission_mode", None),
        continue_last=bool(getattr(args, "continue_last", False)),
        resume=getattr(args, "resume", None),
    )
    service: AgentService | None
    startup_error = None
    try:
        service = create_service(options)
        store = service.store
    except Exception as exc:  # the memory browser and settings still work without an agent
        service = None
        startup_error = f"The agent could not start: {exc}"
        store = SettingsStore(WavePaths.for_workdir(workdir), environ)
    app = make_app(
        store,
        service,
        system_clock,
        watch_settings=True,
        startup_error=startup_error,
        startup_notice=notice,
        model_label=model_label,
    )
    app.run()
    return app.return_code or 0
