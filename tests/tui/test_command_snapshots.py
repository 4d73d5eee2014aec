"""Snapshots of the command layer's screens: /help, the resume picker, the permission dialog
with a diff and with a long Bash command at 80×24, the settings screen with the endpoint, the
trust prompt (UX15, UX18, UX20, HK10, CV10). Update with `--snapshot-update`, review first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.model_server import ModelServer, text, tool_call
from tests.tui.command_ui_helpers import extended_app, wait_for_screen, write_session
from tests.tui.conftest import SIZE, BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.config.paths import WavePaths
from wave_tui.tui.screens.dialogs import PermissionDialog
from wave_tui.tui.screens.pickers import Picker
from wave_tui.tui.screens.trust import TrustDialog

pytestmark = pytest.mark.usefixtures("frozen_time")


@pytest.mark.req("UX15")
def test_ux15_help_lists_commands_and_keys(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer
) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"/help", "enter")
        await settle(pilot)

    app = build_app(server_env(model_server))
    assert snap_compare(app, terminal_size=(100, 40), run_before=run_before)


@pytest.mark.req("UX15")
def test_ux15_slash_completion_popup(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer
) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("slash", "c")
        await pilot.pause()

    app = build_app(server_env(model_server))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("UX15")
def test_ux15_resume_picker(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    write_session(paths, "s-old", ["fix the flaky redis test in CI"], 12)
    write_session(paths, "s-mid", ["why is the build slow?", "profile it"], 2)
    write_session(paths, "s-new", ["add a --json flag to the exporter"], 0.1)

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"/resume", "enter")
        await wait_for_screen(pilot, Picker)

    app = build_app(server_env(model_server))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("UX18")
def test_ux18_permission_dialog_with_a_diff(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    source = project / "src" / "app.py"
    source.parent.mkdir()
    source.write_text("def main():\n    print('hi')\n    return 1\n", encoding="utf-8")
    model_server.enqueue(
        tool_call("Read", {"file_path": "src/app.py"}, "call-read"),
        tool_call(
            "Edit",
            {"file_path": "src/app.py", "old_string": "return 1", "new_string": "return 2"},
            "call-edit",
        ),
        text("done"),
    )

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"bump the return value", "enter")
        await wait_for_screen(pilot, PermissionDialog)

    app = build_app(server_env(model_server))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("CV10")
def test_cv10_permission_dialog_for_a_long_background_bash_command(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer
) -> None:
    """80×24: description, background flag, the command scrolling in the body; the prefix and
    exact "always" choices, Deny and "No, and say why" all on screen."""
    notes = " ".join(f"fix {n}: the parser keeps the comments it reads." for n in range(30))
    command = f"git add -A && git commit -q -m '{notes}'"
    model_server.enqueue(
        tool_call(
            "Bash",
            {
                "command": command,
                "description": "Stage and commit the release notes",
                "run_in_background": True,
            },
            "call-bash",
        ),
        text("done"),
    )

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"release", "enter")
        await wait_for_screen(pilot, PermissionDialog)
        await pilot.pause()

    app = build_app(server_env(model_server))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.req("UX20")
def test_ux20_settings_screen_with_endpoint(
    snap_compare: Any, build_app: BuildApp, paths: WavePaths
) -> None:
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(
        json.dumps(
            {
                "model": "big-model",
                "env": {"WAVE_BASE_URL": "http://127.0.0.1:9/v1", "WAVE_API_KEY": "sk-secret"},
            }
        ),
        encoding="utf-8",
    )

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("f3")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(build_app(), terminal_size=(100, 40), run_before=run_before)


@pytest.mark.req("HK10")
def test_hk10_trust_prompt(snap_compare: Any, project: Path) -> None:
    settings = project / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Write|Edit",
                            "hooks": [{"type": "command", "command": "ruff format"}],
                        }
                    ],
                    "Stop": [{"hooks": [{"type": "command", "command": "./scripts/notify.sh"}]}],
                }
            }
        ),
        encoding="utf-8",
    )

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_for_screen(pilot, TrustDialog)

    assert snap_compare(extended_app(project), terminal_size=SIZE, run_before=run_before)
