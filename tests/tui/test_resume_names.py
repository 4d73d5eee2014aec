"""The `/resume` picker with names: shown, searched as you type, Ctrl+A for every project, and
another project's session reopened in its own folder (FH11)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from tests.model_server import ModelServer
from tests.tui.command_ui_helpers import wait_for_screen, write_session
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.config.paths import WavePaths
from wave_tui.features.rewind.names import note_cwd, set_session_name
from wave_tui.tui.command_screens import Reopen
from wave_tui.tui.screens.resume_picker import ResumePicker

pytestmark = pytest.mark.req("FH11")


def shown(picker: ResumePicker) -> list[str]:
    options = picker.query_one("#picker-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


@pytest.mark.usefixtures("frozen_time")
async def test_names_are_shown_and_searched_and_ctrl_a_opens_another_projects_session(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths, tmp_path: Path
) -> None:
    write_session(paths, "s-plain", ["add a --json flag"], 0.1)
    write_session(paths, "s-named", ["fix the flaky redis test"], 1)
    set_session_name(paths, "s-named", "Redis flake")
    far_folder = tmp_path / "elsewhere"
    far_folder.mkdir()
    far = WavePaths(project_root=far_folder.resolve(), home=paths.home)
    write_session(far, "s-far", ["deploy the docs"], 2)
    set_session_name(far, "s-far", "Docs deploy")
    note_cwd(far, "s-far")

    app = build_app(server_env(model_server))
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.press(*"/resume", "enter")
        picker = await wait_for_screen(pilot, ResumePicker)
        assert isinstance(picker, ResumePicker)
        rows = shown(picker)
        assert len(rows) == 2 and any("[Redis flake] fix the flaky" in r for r in rows)
        assert not any("deploy the docs" in r for r in rows)  # this project only

        await pilot.press(*"flake")
        await pilot.pause()
        assert [("Redis flake" in r) for r in shown(picker)] == [True]
        assert "search: flake" in str(picker.query_one(".dialog-title", Static).content)
        for _ in "flake":
            await pilot.press("backspace")
        await pilot.press("ctrl+a")
        await settle(pilot)
        rows = shown(picker)
        assert len(rows) == 3
        assert any("elsewhere: [Docs deploy] deploy the docs" in r for r in rows)

        await pilot.press(*"docs", "enter")
        await settle(pilot)
        assert app.command_screens.reopen == Reopen(far_folder.resolve(), "s-far")
        assert not app.is_running  # the app ends; wave starts again in that folder
    # This session was not switched: the picked one belongs to the other folder's wave.
    assert all(m.content != "deploy the docs" for m in app.session.messages())
