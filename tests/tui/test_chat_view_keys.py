"""What the chat and the memory browser show and where their keys act: scrolling from the
input and the new-output marker (CV9), the start panel, the footer's keys."""

from __future__ import annotations

import threading

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Input, Static
from textual.widgets._footer import FooterKey

from tests.model_server import ModelServer, text
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import open_memory, settle, wait_until
from wave_tui.config.paths import WavePaths
from wave_tui.tui.screens.memory_runs import RunsScreen
from wave_tui.tui.widgets.history_input import HistoryInput

LONG_REPLY = "\n\n".join(f"paragraph {n} of a long answer" for n in range(60))


def chat_log(pilot: Pilot[None]) -> VerticalScroll:
    return pilot.app.screen.query_one("#chat-log", VerticalScroll)


def at_end(log: VerticalScroll) -> bool:
    return log.scroll_y >= log.max_scroll_y


def footer_keys(pilot: Pilot[None]) -> list[str]:
    return [key.description for key in pilot.app.screen.query(FooterKey)]


@pytest.mark.req("CV9")
async def test_cv9_page_keys_scroll_the_chat_from_the_input_and_sending_goes_to_the_end(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """CV9: PageUp / PageDown scroll the chat while the input has the focus; Home / End too on
    an empty input (in a draft they move the cursor, as in any text field); sending while
    scrolled up goes back to the end."""
    model_server.enqueue(text(LONG_REPLY), text("short"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"tell me a lot", "enter")
        await settle(pilot)
        log = chat_log(pilot)
        assert log.max_scroll_y > 0 and at_end(log)
        await pilot.press("pageup")
        up_once = log.scroll_y
        assert up_once < log.max_scroll_y
        await pilot.press("pageup")
        assert log.scroll_y < up_once
        await pilot.press("pagedown")
        assert log.scroll_y == up_once
        await pilot.press("home")
        assert log.scroll_y == 0
        await pilot.press("end")
        assert at_end(log)
        await pilot.press("home", *"draft", "home")
        prompt = app.screen.query_one("#prompt", HistoryInput)
        assert log.scroll_y == 0  # Home in the draft moved its cursor, not the chat
        assert prompt.cursor_location == (0, 0)
        await pilot.press("end", *" done", "enter")
        await settle(pilot)
        assert at_end(log)


@pytest.mark.req("CV9")
async def test_cv9_new_output_while_scrolled_up_shows_a_marker_until_the_end(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """CV9: scrolled up, new output below lights "↓ new output"; at the end it goes. A log
    that follows its output never shows it (its first overflow included)."""
    streaming = threading.Event()
    model_server.enqueue(text(LONG_REPLY), text(LONG_REPLY, hold=streaming))
    app = build_app(server_env(model_server))
    app.animation_level = "full"  # as the app runs: its layout settles over a few frames
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"first", "enter")
        await settle(pilot)
        marker = app.screen.query_one("#new-output", Static)
        assert not marker.display
        await pilot.press(*"second", "enter")
        await wait_until(pilot, lambda: app.session.status().busy)
        assert not marker.display
        await pilot.press("pageup", "pageup")
        streaming.set()
        await settle(pilot)
        assert marker.display
        assert "new output" in str(marker.content)
        log = chat_log(pilot)
        assert not at_end(log)
        await pilot.press("end")
        await pilot.pause()
        assert at_end(log)
        assert not marker.display


async def test_start_panel_shows_project_model_and_tips_until_the_first_message(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """An empty chat shows the project folder, the model and two tips; the first message
    takes it away."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        panel = app.screen.query_one("#start-panel", Static)
        shown = str(panel.render())
        assert "~/project" in shown  # the tests' stable name for the tmp project folder
        assert "test-model" in shown
        assert "/help for commands" in shown and "F2 memory" in shown
        await pilot.press(*"hello", "enter")
        await settle(pilot)
        assert not app.screen.query("#start-panel")


async def test_start_panel_is_not_shown_without_a_model(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)):
        assert not app.screen.query_one("#start-panel", Static).display
        assert app.screen.query("#first-run")


async def test_the_footer_offers_stop_turn_only_while_a_turn_runs(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    streaming = threading.Event()
    model_server.enqueue(text("slow " * 20, hold=streaming))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert "Stop turn" not in footer_keys(pilot)
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: "Stop turn" in footer_keys(pilot))
        assert "Stop turn" in footer_keys(pilot)
        streaming.set()
        await settle(pilot)
        await wait_until(pilot, lambda: "Stop turn" not in footer_keys(pilot))
        assert "Stop turn" not in footer_keys(pilot)


@pytest.mark.req("F2")
@pytest.mark.req("UX7")
async def test_the_memory_browser_opens_on_its_list_where_the_footer_keys_act(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """F2 opens with the focus on the list: `u` (shown in the footer) opens the runs; `/`
    goes to the filter, where letters are typed and the list's keys leave the footer."""
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        table = await open_memory(pilot)
        assert app.screen.focused is table
        assert {"Delete", "Edit", "Runs"} <= set(footer_keys(pilot))
        await pilot.press("slash", *"deu")
        await pilot.pause()
        field = app.screen.query_one("#memory-filter", Input)
        assert app.screen.focused is field
        assert field.value == "deu"
        await wait_until(pilot, lambda: "Delete" not in footer_keys(pilot))
        assert not {"Delete", "Edit", "Runs"} & set(footer_keys(pilot))
        field.value = ""
        await pilot.press("down", "u")
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)
