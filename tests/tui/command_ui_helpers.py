"""Shared set-up for the command-layer UI tests: sessions on disk, an app with user hooks."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.screen import Screen

from tests.tui.conftest import FIXED_NOW, fixed_clock, set_age
from wave_tui.agent.service import AgentOptions
from wave_tui.agent.transcript import transcript_for
from wave_tui.config.paths import WavePaths
from wave_tui.llm.types import Message
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.tui.app import WaveApp, make_app

STAMP = FIXED_NOW.isoformat()


def write_session(paths: WavePaths, session_id: str, prompts: list[str], age_days: float) -> Path:
    transcript = transcript_for(paths, session_id)
    for n, prompt in enumerate(prompts):
        transcript.append(
            Message(role="user", content=prompt, id=f"{session_id}-u{n}", timestamp=STAMP)
        )
        transcript.append(
            Message(
                role="assistant", content=f"answer {n}", id=f"{session_id}-a{n}", timestamp=STAMP
            )
        )
    set_age(transcript.path, age_days)
    return transcript.path


def extended_app(project: Path, environ: dict[str, str] | None = None) -> WaveApp:
    """The app over a service with user hooks, custom commands and skills (trust mode "ask")."""
    service, _extras = create_service_with_extensions(
        AgentOptions(workdir=project, environ=environ or {}, clock=fixed_clock)
    )
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    return app


async def wait_for_screen(pilot: Pilot[None], kind: type[Screen[object]]) -> Screen[object]:
    for _ in range(200):
        if isinstance(pilot.app.screen, kind) and pilot.app.screen.is_mounted:
            await pilot.pause()
            return pilot.app.screen
        await pilot.pause(0.02)
    raise AssertionError(f"{kind.__name__} never showed; screen is {pilot.app.screen!r}")
