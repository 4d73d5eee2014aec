"""What a new user met in the first hour of the app: the endpoint in force and where it comes
from in the settings (F3), the connection test's answer in view at 80×24, the endpoint's own
models in `/model`, review proposals announced and counted, the trust notice once trusted, and
a description for every command (UX20, UX15, MX8, HK10)."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from tests.extraction_helpers import is_fork, is_main
from tests.mcp.conftest import DEMO
from tests.model_server import ModelServer, text, tool_call
from tests.tui.command_ui_helpers import extended_app, wait_for_screen
from tests.tui.conftest import BuildApp, fixed_clock, server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.agent.service import AgentOptions
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import SettingsStore
from wave_tui.config.trust import TrustStore
from wave_tui.session.factory import create_service
from wave_tui.tui.app import WaveApp, make_app
from wave_tui.tui.screens.memory_runs import InboxScreen
from wave_tui.tui.screens.pickers import Picker
from wave_tui.tui.screens.trust import TrustDialog
from wave_tui.tui.widgets.chat_items import CommandOutputBlock, NoticeLine
from wave_tui.tui.widgets.status_line import StatusLine


async def open_settings(app: WaveApp, pilot: object) -> None:
    await pilot.press("f3")  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


def shown(app: WaveApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)


# -- the endpoint in force (F3) --------------------------------------------------------------


@pytest.mark.req("UX20")
async def test_ux20_settings_show_the_endpoint_from_the_environment_and_save_keeps_it_out(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    """WAVE_BASE_URL in force: the field shows it and says so; a save of something else does
    not copy the environment's URL or key into the settings file."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_settings(app, pilot)
        assert app.screen.query_one("#base-url", Input).value == model_server.base_url
        assert app.screen.query_one("#api-key", Input).value == "k"
        assert "WAVE_BASE_URL from the environment" in shown(app, "#base-url-origin")
        assert "WAVE_API_KEY from the environment" in shown(app, "#api-key-origin")
        app.screen.query_one("#frequency", Input).value = "3"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await app.workers.wait_for_complete()
    saved = json.loads(paths.user_settings.read_text(encoding="utf-8"))
    assert saved == {"autoMemoryFrequency": 3}


@pytest.mark.req("UX20")
async def test_ux20_settings_name_the_settings_file_in_force_and_save_what_the_user_typed(
    build_app: BuildApp, paths: WavePaths
) -> None:
    """UX20: a base URL from the project's settings file is shown with that file's name; what
    the user types over it is what the user file gets."""
    paths.project_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.project_settings.write_text(
        json.dumps({"env": {"WAVE_BASE_URL": "http://127.0.0.1:9/v1"}}), encoding="utf-8"
    )
    # A project's endpoint counts only once the user trusted the project for it (HR12).
    request = SettingsStore(paths, {}).settings_trust_needed()
    assert request is not None
    TrustStore(paths.trust_file).record(request)
    app = build_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await open_settings(app, pilot)
        field = app.screen.query_one("#base-url", Input)
        assert field.value == "http://127.0.0.1:9/v1"
        assert shown(app, "#base-url-origin") == (
            "In use: from .wave/settings.json (wins over ~/.wave/settings.json)"
        )
        assert shown(app, "#api-key-origin").startswith("Not set: no WAVE_API_KEY")
        field.value = "http://127.0.0.1:7/v1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await app.workers.wait_for_complete()
    saved = json.loads(paths.user_settings.read_text(encoding="utf-8"))
    assert saved["env"] == {"WAVE_BASE_URL": "http://127.0.0.1:7/v1"}


@pytest.mark.req("UX20")
async def test_ux20_connection_result_is_in_view_at_80x24(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """UX20: Ctrl+T from the first field of a small terminal: the answer is on screen."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_settings(app, pilot)
        await pilot.press("ctrl+t")
        result = app.screen.query_one("#connection-result", Static)
        await wait_until(pilot, lambda: str(result.content).startswith("Connected"))
        await pilot.pause()
        assert str(result.content).startswith("Connected: test-model"), result.content
        form = app.screen.query_one("#settings-form")
        visible = form.scrollable_content_region
        assert result.region.height > 0
        assert visible.contains_region(result.region), (result.region, visible)


# -- /model: the endpoint's models -----------------------------------------------------------


def picker_ids(picker: Picker) -> list[str | None]:
    options = picker.query_one("#picker-list", OptionList)
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


@pytest.mark.req("UX15")
async def test_ux15_model_picker_adds_the_endpoints_models_once_per_session(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    """UX15: the configured models first, then what `GET /v1/models` lists (read once)."""
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(json.dumps({"models": {"big-one": {}}}), encoding="utf-8")
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"/model", "enter")
        picker = await wait_for_screen(pilot, Picker)
        assert isinstance(picker, Picker)
        assert picker_ids(picker) == ["test-model", "big-one", "fast", "smart"]
        row = str(picker.query_one("#picker-list", OptionList).get_option_at_index(3).prompt)
        assert "offered by the endpoint" in row
        assert [g.path for g in model_server.gets] == ["/v1/models"]
        assert model_server.gets[0].headers["authorization"] == "Bearer k"
        await pilot.press("escape")
        await pilot.press(*"/model", "enter")
        again = await wait_for_screen(pilot, Picker)
        assert isinstance(again, Picker)
        assert picker_ids(again) == ["test-model", "big-one", "fast", "smart"]
        assert len(model_server.gets) == 1  # cached for the session
        await pilot.press("down", "down", "down", "enter")
        await settle(pilot)
        model_server.enqueue(text("hi"))
        await pilot.press(*"hello", "enter")
        await settle(pilot)
        assert model_server.last_request.body["model"] == "smart"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.req("UX15")
async def test_ux15_model_picker_with_an_unreachable_endpoint_offers_the_configured_ones(
    build_app: BuildApp,
) -> None:
    """UX15: no model list from the endpoint: the configured models and one line saying so."""
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    environ = {
        "WAVE_BASE_URL": base_url,
        "WAVE_API_KEY": "k",
        "WAVE_MODEL": "test-model",
    }
    app = build_app(environ)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"/model", "enter")
        picker = await wait_for_screen(pilot, Picker)
        assert isinstance(picker, Picker)
        assert picker_ids(picker) == ["test-model"]
        hint = str(picker.query_one(".dialog-detail", Static).content)
        assert hint.startswith(
            f"The endpoint's model list could not be read: cannot reach {base_url}/models"
        )
        assert len(hint.splitlines()) == 2  # that line, then the usual hint


# -- review proposals ------------------------------------------------------------------------


@pytest.mark.req("MX8")
async def test_mx8_fork_proposals_are_announced_and_counted_in_the_status_line(
    model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    """MX8: with `autoMemoryReview: true` a toast says proposals wait and where; the status
    line counts them until they are accepted."""
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(json.dumps({"autoMemoryReview": True}), encoding="utf-8")
    service = create_service(
        AgentOptions(workdir=project, environ=server_env(model_server), clock=fixed_clock)
    )
    target = service.paths.memory_dir / "build.md"
    model_server.enqueue(text("noted"), when=is_main)
    model_server.enqueue(
        tool_call(
            "Write",
            {"file_path": str(target), "content": "---\nname: b\ntype: project\n---\nmake\n"},
        ),
        text("saved"),
        when=is_fork,
    )
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(100, 32)) as pilot:
        status = app.chat_screen.query_one("#status", StatusLine)
        await pilot.press(*"we build with make", "enter")
        await wait_until(pilot, lambda: "to review" in str(status.content), tries=400)
        toasts = [str(n.message) for n in app._notifications]
        assert "1 memory proposal waits for review: F2, Esc, i opens the inbox" in toasts
        assert "1 memory to review" in str(status.content)
        assert not target.exists()
        await pilot.press("f2", "escape", "i")  # the keys the toast names
        await wait_for_screen(pilot, InboxScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("a")
        await wait_until(pilot, target.exists)
        await pilot.press("escape", "f1")
        await wait_until(pilot, lambda: "to review" not in str(status.content))
        assert "to review" not in str(status.content)
    assert target.exists()


# -- trust -----------------------------------------------------------------------------------


@pytest.mark.req("HK10")
async def test_hk10_the_not_trusted_notice_says_trusted_once_the_user_trusts(
    project: Path,
) -> None:
    """HK10: the chat's "not started: not trusted yet" line does not outlive the trust."""
    entry = {"command": sys.executable, "args": [str(DEMO)]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": entry}}))
    app = extended_app(project)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_for_screen(pilot, TrustDialog)

        def notices() -> list[str]:
            return [str(line.content) for line in app.chat_screen.query(NoticeLine)]

        await wait_until(pilot, lambda: any("not trusted yet" in n for n in notices()))
        await pilot.press("y")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not any("not trusted yet" in n for n in notices()), notices()
        assert "trusted: project MCP servers run from now on" in notices()
        await app.session.close()


# -- every command described -----------------------------------------------------------------


@pytest.mark.req("UX15")
async def test_ux15_every_command_has_a_description_in_help_and_the_popup(project: Path) -> None:
    """UX15: a skill without `description` and a custom command with no text still say what
    they are, in `/help` and the `/` popup."""
    commands = project / ".wave" / "commands"
    commands.mkdir(parents=True)
    (commands / "empty.md").write_text("---\nargument-hint: x\n---\n", encoding="utf-8")
    skill = project / ".wave" / "skills" / "bare"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: bare\n---\nDo it.\n", encoding="utf-8")
    app = extended_app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        choices = app.session.input.command_choices("")
        assert {"bare", "empty", "mcp", "help"} <= {c.name for c in choices}
        assert [c.name for c in choices if not c.description.strip()] == []
        assert next(c for c in choices if c.name == "mcp").description != (
            "No MCP servers configured"
        )
        await pilot.press(*"/help", "enter")
        await pilot.press("enter")
        await settle(pilot)
        (block,) = app.chat_screen.query(CommandOutputBlock)
        lines = str(block.content).splitlines()
        assert any(line.split()[:1] == ["/bare"] and "Run the bare skill" in line for line in lines)
        assert any("/empty x" in line and "Custom command in empty.md" in line for line in lines)


@pytest.mark.req("UX20")
async def test_ux20_saving_a_url_the_environment_overrides_says_which_stays_in_use(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    """UX20: the typed URL is saved, and the toast says the environment's stays in force."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_settings(app, pilot)
        app.screen.query_one("#base-url", Input).value = "http://127.0.0.1:7/v1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await app.workers.wait_for_complete()
        toasts = [str(n.message) for n in app._notifications]
        assert any("but WAVE_BASE_URL from the environment" in t for t in toasts), toasts
        assert "WAVE_BASE_URL from the environment" in shown(app, "#base-url-origin")
    saved = json.loads(paths.user_settings.read_text(encoding="utf-8"))
    assert saved["env"] == {"WAVE_BASE_URL": "http://127.0.0.1:7/v1"}
