"""The fourth-round trial's minor defects of the chat (FH10): a restored interrupted call, a
reply cut mid-stream."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey

from tests.model_server import ModelServer, text, tool_call
from tests.tui.command_ui_helpers import extended_app, wait_for_screen
from tests.tui.conftest import fixed_clock, server_env
from tests.tui.helpers import settle, wait_until
from tests.wire_view import flat
from wave_tui.agent.service import AgentOptions
from wave_tui.session.factory import create_service
from wave_tui.tui.app import make_app
from wave_tui.tui.screens.chat import PROMPT_HINTS, PROMPT_PLACEHOLDER
from wave_tui.tui.screens.trust import TrustDialog
from wave_tui.tui.widgets.chat_items import NoticeLine, ToolBlock
from wave_tui.tui.widgets.history_input import HistoryInput


def footer_keys(pilot: Pilot[None]) -> list[str]:
    return [key.description for key in pilot.app.screen.query(FooterKey)]


def notices(pilot: Pilot[None]) -> list[str]:
    return [str(n.content) for n in pilot.app.screen.query(NoticeLine)]


@pytest.mark.req("FH10")
async def test_a_continued_session_shows_an_interrupted_bash_call_as_interrupted(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    command = "echo started; while [ ! -e go ]; do sleep 0.05; done"
    model_server.enqueue(tool_call("Bash", {"command": command}))
    options = AgentOptions(
        workdir=project, environ=server_env(model_server), permission_mode="bypassPermissions"
    )
    service = create_service(options)
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press(*"run it", "enter")
        await wait_until(pilot, lambda: "Background" in footer_keys(pilot))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not service.busy)
        (live,) = app.chat_screen.query(ToolBlock)
        assert live.status == "✗ interrupted"
    await service.destroy()
    (project / "go").touch()
    again = create_service(AgentOptions(**{**options.__dict__, "continue_last": True}))
    app = make_app(again.store, again, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(120, 32)) as pilot:
        await wait_until(pilot, lambda: len(app.chat_screen.query(ToolBlock)) == 1)
        (restored,) = app.chat_screen.query(ToolBlock)
        assert restored.status == "✗ interrupted"
        assert restored.has_class("-error")
    await again.destroy()


@pytest.mark.req("FH10")
async def test_a_reply_cut_mid_stream_says_it_was_not_kept(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    model_server.enqueue(text("alpha beta gamma delta", disconnect_after=3))
    service = create_service(AgentOptions(workdir=project, environ=server_env(model_server)))
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press(*"talk", "enter")
        await wait_until(pilot, lambda: any("back in the input" in n for n in notices(pilot)))
        await settle(pilot)
        said = [n for n in notices(pilot) if "back in the input" in n]
        assert said == ["the reply was cut off and not kept: the message is back in the input"]
    await service.destroy()


@pytest.mark.req("FH10")
async def test_typing_goes_on_into_the_input_when_the_trust_prompt_opens_under_it(
    project: Path, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trust prompt opened seconds after start, over a message being typed: Enter answered
    "keep off" and the words were gone. Keys go on into the input until the user pauses."""
    from wave_tui.tui import typed_ahead

    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    monkeypatch.setattr(typed_ahead, "TYPING_PAUSE_S", 30.0)  # the user never pauses here
    monkeypatch.setattr(typed_ahead, "READING_S", 30.0)
    settings = project / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True)
    hook = {"type": "command", "command": "echo checked >> hook.log"}
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [hook]}]}}),
        encoding="utf-8",
    )
    model_server.enqueue(text("hello to you"))
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await wait_for_screen(pilot, TrustDialog)
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: len(model_server.requests) >= 1)
        assert app.screen is dialog  # neither a letter nor Enter answered it
        assert "hello" in flat(model_server.requests[0].body["messages"])[-1][1]
        assert app.session.permissions.trust_requests() != []
        await pilot.press("escape")  # Esc always reaches the dialog
        await settle(pilot)
        assert app.screen is not dialog


@pytest.mark.req("FH10")
async def test_the_trust_prompt_asks_about_an_outside_import_and_yes_loads_it(
    project: Path, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    shared = Path.home() / "team" / "shared.md"
    shared.parent.mkdir(parents=True)
    shared.write_text("Team rule: squash merges.\n", encoding="utf-8")
    (project / "AGENTS.md").write_text("@~/team/shared.md\n", encoding="utf-8")
    model_server.enqueue(text("noted"))
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = await wait_for_screen(pilot, TrustDialog)
        assert isinstance(dialog, TrustDialog)
        assert [(r.kind, r.items) for r in dialog.requests] == [
            ("imports", (str(shared.resolve()),))
        ]
        await pilot.press("y")
        await settle(pilot)
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: len(model_server.requests) >= 1)
        assert "Team rule: squash merges." in json.dumps(model_server.requests[0].body)
    again = extended_app(project, server_env(model_server))
    async with again.run_test(size=(100, 32)) as pilot:
        await settle(pilot)
        assert not isinstance(again.screen, TrustDialog)  # asked once per project


@pytest.mark.req("FH10")
async def test_the_input_hint_at_80_columns_ends_with_a_whole_hint(
    project: Path, model_server: ModelServer
) -> None:
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await wait_until(pilot, lambda: prompt.placeholder != PROMPT_PLACEHOLDER)
        shown = prompt.placeholder
        assert shown.endswith(PROMPT_HINTS[len(shown.split("  ·  ")) - 1])
        assert len(shown) < prompt.content_size.width
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(140, 24)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await settle(pilot)
        assert prompt.placeholder == PROMPT_PLACEHOLDER


@pytest.mark.req("FH10")
async def test_the_settings_help_at_80_columns_wraps_inside_the_screen(
    project: Path, model_server: ModelServer
) -> None:
    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: bool(app.screen.query(".setting-hint")))
        await settle(pilot)
        form = app.screen.query_one("#settings-form")
        hints = list(app.screen.query(".setting-hint"))
        assert hints
        for hint in hints:
            assert hint.region.right <= form.scrollable_content_region.right
        assert max(hint.size.height for hint in hints) > 1  # the long one wrapped


@pytest.mark.req("FH10")
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_toast_covers_neither_the_status_line_nor_the_input(
    project: Path, model_server: ModelServer, size: tuple[int, int]
) -> None:
    from textual.widgets._toast import Toast

    app = extended_app(project, server_env(model_server))
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        app.notify("Press Ctrl+C again to quit", timeout=30)
        await wait_until(pilot, lambda: bool(app.chat_screen.query(Toast)))
        await settle(pilot)
        toast = app.chat_screen.query(Toast).first().region
        for kept in ("#status", "#prompt"):
            region = app.chat_screen.query_one(kept).region
            assert not toast.overlaps(region), (kept, toast, region)
