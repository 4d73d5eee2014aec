"""`wave --resume` with no id opens the resume picker in the app; `-p` needs an id (UX15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model_server import ModelServer
from tests.tui.command_ui_helpers import wait_for_screen, write_session
from tests.tui.conftest import fixed_clock
from tests.wave_cli import run_wave
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.cli.main import PICK_SESSION, build_parser
from wave_tui.config.paths import WavePaths
from wave_tui.tui.app import make_app
from wave_tui.tui.screens.pickers import Picker


@pytest.mark.req("UX15")
def test_ux15_resume_without_an_id_asks_for_the_picker() -> None:
    assert build_parser().parse_args(["--resume"]).resume == PICK_SESSION
    assert build_parser().parse_args(["--resume", "abc"]).resume == "abc"
    assert build_parser().parse_args([]).resume is None


@pytest.mark.req("UX15")
def test_ux15_headless_resume_without_an_id_is_a_usage_error(project: Path) -> None:
    result = run_wave("-p", "hi", "--resume", cwd=project)
    assert result.returncode == 2, result.stderr
    assert "--resume needs a session id with -p" in result.stderr


@pytest.mark.req("UX15")
@pytest.mark.usefixtures("frozen_time")
async def test_ux15_app_started_to_pick_a_session_shows_the_resume_picker(
    project: Path, paths: WavePaths, model_server: ModelServer
) -> None:
    write_session(paths, "s-one", ["rename the config loader"], 1)
    service = AgentService(
        AgentOptions(workdir=project, environ=model_server.env(), clock=fixed_clock)
    )
    app = make_app(service.store, service, fixed_clock, pick_session=True)
    async with app.run_test(size=(100, 32)) as pilot:
        picker = await wait_for_screen(pilot, Picker)
        assert "rename the config loader" in str(picker.options[0].prompt)
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.session.messages()[0].content == "rename the config loader"
