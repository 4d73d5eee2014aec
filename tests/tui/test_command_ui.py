"""The command layer in the app: `/` completion, pickers, /permissions, the permission dialog's
preview and scoped grant, the trust prompt and the settings endpoint (UX15, UX2, UX18, UX20,
HK10)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from tests.model_server import ModelServer, text, tool_call
from tests.tui.command_ui_helpers import extended_app, wait_for_screen, write_session
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.config.paths import WavePaths
from wave_tui.tui.screens.dialogs import PermissionDialog
from wave_tui.tui.screens.permissions import PermissionsScreen
from wave_tui.tui.screens.pickers import Picker
from wave_tui.tui.screens.trust import TrustDialog
from wave_tui.tui.widgets.chat_items import CommandOutputBlock, UserMessage
from wave_tui.tui.widgets.command_popup import CommandPopup
from wave_tui.tui.widgets.history_input import HistoryInput

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("UX2")


@pytest.mark.req("UX15")
async def test_ux15_slash_opens_completion_with_descriptions_and_tab_accepts(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("slash", "c")
        await pilot.pause()
        popup = app.chat_screen.query_one("#command-popup", CommandPopup)
        assert popup.is_open
        rows = [str(popup.get_option_at_index(i).prompt) for i in range(popup.option_count)]
        assert any("/clear" in r and "Start a new conversation" in r for r in rows)
        assert any("/compact [focus]" in r and "Summarise" in r for r in rows)
        await pilot.press("down", "tab")
        await pilot.pause()
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        assert prompt.value == f"/{popup_names(rows)[1]} "
        assert not popup.is_open
        assert model_server.requests == []


def popup_names(rows: list[str]) -> list[str]:
    return [r.split()[0].lstrip("/") for r in rows]


@pytest.mark.req("UX15")
async def test_ux15_enter_accepts_an_incomplete_command_and_sends_a_complete_one(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"/hel", "enter")
        await pilot.pause()
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        assert prompt.value == "/help "
        assert not app.chat_screen.query(CommandOutputBlock)
        await pilot.press("enter")
        await settle(pilot)
        assert len(app.chat_screen.query(CommandOutputBlock)) == 1
        assert not app.chat_screen.query(UserMessage)
        assert model_server.requests == []


@pytest.mark.req("UX15")
async def test_ux15_model_picker_lists_configured_models_and_switches(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(
        json.dumps({"fastModel": "small-one", "models": {"big-one": {}}}), encoding="utf-8"
    )
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"/model", "enter")
        picker = await wait_for_screen(pilot, Picker)
        options = picker.query_one("#picker-list", OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        # the configured models first, then the others the endpoint lists
        assert ids == ["test-model", "small-one", "big-one", "fast", "smart"]
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        model_server.enqueue(text("hi"))
        await pilot.press(*"hello", "enter")
        await settle(pilot)
        assert model_server.last_request.body["model"] == "big-one"


@pytest.mark.req("UX15")
@pytest.mark.usefixtures("frozen_time")  # the transcripts' ages are relative to the frozen clock
async def test_ux15_resume_picker_switches_to_the_chosen_session(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    write_session(paths, "older-session", ["fix the flaky redis test"], 3)
    write_session(paths, "newer-session", ["add a --json flag", "and tests"], 0.1)
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"/resume", "enter")
        picker = await wait_for_screen(pilot, Picker)
        options = picker.query_one("#picker-list", OptionList)
        first = str(options.get_option_at_index(0).prompt)
        assert "add a --json flag" in first and "4 msgs" in first
        await pilot.press("down", "enter")
        await settle(pilot)
        shown = [str(m.content) for m in app.chat_screen.query(UserMessage)]
        assert any("fix the flaky redis test" in s for s in shown)
        assert app.session.messages()[0].content == "fix the flaky redis test"
        assert model_server.requests == []


@pytest.mark.req("UX18")
async def test_ux18_permission_dialog_shows_the_edit_diff_and_scoped_grant(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    model_server.enqueue(
        tool_call("Read", {"file_path": str(project / "src" / "app.py")}),
        tool_call(
            "Edit",
            {
                "file_path": str(project / "src" / "app.py"),
                "old_string": "return 1",
                "new_string": "return 2",
            },
        ),
        text("done"),
    )
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"bump it", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        assert isinstance(dialog, PermissionDialog)
        assert dialog.preview is not None and dialog.preview.kind == "diff"
        assert "-    return 1" in dialog.preview.text and "+    return 2" in dialog.preview.text
        assert dialog.grant_label == "Always allow Edit in src this session"
        await pilot.press("a")
        await settle(pilot)
        assert (project / "src" / "app.py").read_text(encoding="utf-8").endswith("return 2\n")
        await pilot.press(*"/permissions", "enter")
        screen = await wait_for_screen(pilot, PermissionsScreen)
        grants = screen.query_one("#grants", OptionList)
        grant = grants.get_option_at_index(0).id
        assert grant is not None and grant.startswith("Edit(") and "src" in grant
        await pilot.press("d")
        await pilot.pause()
        assert app.session.permissions.state().session_grants == ()  # type: ignore[union-attr]


@pytest.mark.req("UX18")
async def test_ux18_permission_dialog_shows_the_full_bash_command(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    command = "rm -rf build && make all && echo 'a very long tail that a key arg would cut off'"
    model_server.enqueue(tool_call("Bash", {"command": command}), text("ok"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"build", "enter")
        dialog = await wait_for_screen(pilot, PermissionDialog)
        bodies = [str(s.content) for s in dialog.query(".permission-command").results(Static)]
        assert command in bodies
        await pilot.press("n")
        await settle(pilot)


@pytest.mark.req("HK10")
async def test_hk10_trust_prompt_lists_project_hooks_and_yes_remembers(
    project: Path, paths: WavePaths
) -> None:
    settings = project / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True)
    hook = {"type": "command", "command": "echo checked >> hook.log"}
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [hook]}]}}),
        encoding="utf-8",
    )
    app = extended_app(project)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await wait_for_screen(pilot, TrustDialog)
        assert isinstance(dialog, TrustDialog)
        assert [r.items for r in dialog.requests] == [
            ("PreToolUse Write: echo checked >> hook.log",)
        ]
        await pilot.press("y")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.session.permissions.trust_requests() == []
    trusted = json.loads(paths.trust_file.read_text(encoding="utf-8"))
    assert any(key.endswith("::hooks") for key in trusted)
    again = extended_app(project)
    async with again.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert not isinstance(again.screen, TrustDialog)


@pytest.mark.req("HK10")
async def test_hk10_trust_prompt_no_keeps_project_hooks_off(
    project: Path, paths: WavePaths
) -> None:
    settings = project / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True)
    hook = {"type": "command", "command": "echo x"}
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}), encoding="utf-8")
    app = extended_app(project)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_for_screen(pilot, TrustDialog)
        await pilot.press("n")
        await pilot.pause()
        assert len(app.session.permissions.trust_requests()) == 1
    assert not paths.trust_file.exists()


@pytest.mark.req("UX20")
async def test_ux20_settings_endpoint_saved_masked_in_env_with_mode_0600(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f3")
        await app.workers.wait_for_complete()
        screen = app.screen
        key = screen.query_one("#api-key", Input)
        assert key.password
        screen.query_one("#base-url", Input).value = model_server.base_url
        key.value = "sk-secret"
        screen.query_one("#model", Input).value = "test-model"
        screen.query_one("#fast-model", Input).value = "tiny"
        await pilot.press("ctrl+t")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        result = str(screen.query_one("#connection-result", Static).content)
        assert result.startswith("Connected: test-model"), result
        assert model_server.last_request.headers["authorization"] == "Bearer sk-secret"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await app.workers.wait_for_complete()
    saved = json.loads(paths.user_settings.read_text(encoding="utf-8"))
    assert saved["env"] == {"WAVE_BASE_URL": model_server.base_url, "WAVE_API_KEY": "sk-secret"}
    assert saved["model"] == "test-model" and saved["fastModel"] == "tiny"
    assert stat.S_IMODE(paths.user_settings.stat().st_mode) == 0o600


@pytest.mark.req("UX20")
async def test_ux20_test_connection_reports_a_refused_endpoint(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f3")
        await app.workers.wait_for_complete()
        screen = app.screen
        screen.query_one("#base-url", Input).value = ""
        screen.query_one("#model", Input).value = "m"
        await pilot.press("ctrl+t")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        result = screen.query_one("#connection-result", Static)
        assert "base URL" in str(result.content) and result.has_class("-error")


@pytest.mark.req("UX11")
async def test_ux11_frequency_field_rejects_decimals_and_letters_with_a_word(
    build_app: BuildApp, paths: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f3")
        await app.workers.wait_for_complete()
        frequency = app.screen.query_one("#frequency", Input)
        frequency.focus()
        frequency.value = ""
        await pilot.press("2", "full_stop", "5")
        await pilot.pause()
        assert frequency.value == "2.5"
        error = app.screen.query_one("#frequency-error", Static)
        assert error.display and "whole number" in str(error.content)
        frequency.value = ""
        await pilot.press("x")
        await pilot.pause()
        assert frequency.value == "x" and error.display
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert not paths.user_settings.exists()


@pytest.mark.req("FH10")
async def test_the_fast_model_field_says_which_model_the_environment_sets(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    app = build_app(model_server.env(WAVE_FAST_MODEL="tiny-fast"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f3")
        await app.workers.wait_for_complete()
        await pilot.pause()
        field = app.screen.query_one("#fast-model", Input)
        assert field.value == ""
        assert field.placeholder == "in use: tiny-fast (WAVE_FAST_MODEL)"
