"""The chat input takes what is typed exactly (CV1, CV2, CV6): bursts of keys as a terminal
delivers them, typed-ahead messages, Ctrl+C and Esc mid-turn, Ctrl+R's query, the `@` list."""

from __future__ import annotations

import json
import threading
import unicodedata
from pathlib import Path

import pytest
from textual import events
from textual.app import _character_to_key
from textual.keys import REPLACED_KEYS, _get_unicode_name_from_key
from textual.pilot import Pilot
from textual.widgets import Static

from tests.model_server import ModelServer, text
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.config.paths import WavePaths
from wave_tui.tui.widgets.chat_items import CommandOutputBlock, NoticeLine, UserMessage
from wave_tui.tui.widgets.command_popup import CommandPopup
from wave_tui.tui.widgets.history_input import HistoryInput


async def burst(pilot: Pilot[None], *keys: str) -> None:
    """`keys` as a terminal delivers a burst: every one posted before the app handles the
    first (Pilot's `press` waits for each key to be handled before the next)."""
    app = pilot.app
    driver = app._driver
    assert driver is not None
    for key in keys:
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        original = REPLACED_KEYS.get(key, key)
        try:
            char: str | None = unicodedata.lookup(_get_unicode_name_from_key(original))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        driver.send_message(event)
    for _ in range(5):
        await pilot.pause()


def typed(message: str) -> list[str]:
    return [*message, "enter"]


def prompt_of(pilot: Pilot[None]) -> HistoryInput:
    return pilot.app.screen.query_one("#prompt", HistoryInput)


def user_prompts(server: ModelServer) -> list[str]:
    """The new prompt of every request: its last message's text."""
    prompts = []
    for record in server.requests:
        last = record.body["messages"][-1]
        content = last["content"]
        if not isinstance(content, str):
            content = json.dumps(content)
        prompts.append(content.rsplit("</system-reminder>", 1)[-1].strip())
    return prompts


@pytest.mark.req("CV1")
async def test_cv1_messages_typed_ahead_in_one_burst_are_queued_each_once_in_order(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    """CV1: Enter takes the text and clears the input at once: the next message's keys,
    arriving right behind it, start a message of their own."""
    streaming = threading.Event()
    model_server.enqueue(text("slow " * 20, hold=streaming))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*typed("first"))
        await wait_until(pilot, lambda: app.session.status().busy)
        await burst(pilot, *typed("one"), *typed("two"), *typed("three"), *"draft")
        assert prompt_of(pilot).text == "draft"
        assert app.session.status().queue == ("one", "two", "three")
        streaming.set()
        await settle(pilot)
        shown = [str(m.content) for m in app.chat_screen.query(UserMessage)]
    assert user_prompts(model_server) == ["first", "one", "two", "three"]
    assert shown == ["first", "one", "two", "three"]
    lines = paths.input_history.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["text"] for line in lines] == ["first", "one", "two", "three"]


@pytest.mark.req("CV2")
async def test_cv2_slash_help_and_enter_in_one_burst_runs_help(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """CV2: the `/` popup's completion is decided on the text as it is when Enter lands."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await burst(pilot, *typed("/help"), *"p")
        await settle(pilot)
        outputs = app.chat_screen.query(CommandOutputBlock)
        assert len(outputs) == 1
        assert "/help" in str(outputs.first().content)
        assert prompt_of(pilot).text == "p"
        assert not app.chat_screen.query(UserMessage)
    assert model_server.requests == []


@pytest.mark.req("CV2")
async def test_cv2_an_incomplete_command_and_enter_in_one_burst_completes_that_text(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """CV2: `/hel` + Enter completes `/hel` (to `/help `), whatever the popup showed before."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await burst(pilot, *typed("/hel"))
        assert prompt_of(pilot).text == "/help "
        await burst(pilot, *"x")
        assert prompt_of(pilot).text == "/help x"
    assert model_server.requests == []


@pytest.mark.req("CV2")
async def test_cv2_ctrl_j_and_backspace_in_a_burst_land_where_they_were_typed(
    build_app: BuildApp,
) -> None:
    """CV2: a newline (and a backspace) act where they came in the burst, not after it."""
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await burst(pilot, *"alpha", "ctrl+j", *"beta")
        assert prompt_of(pilot).text == "alpha\nbeta"
        prompt_of(pilot).value = ""
        await burst(pilot, *"abc", "backspace", *"d", "left", *"x")
        assert prompt_of(pilot).text == "abxd"


@pytest.mark.req("CV6")
async def test_cv6_ctrl_c_during_a_turn_interrupts_it_and_only_idle_empty_quits(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """CV6: Ctrl+C mid-turn stops the turn (twice never quits); the draft stays; on an idle
    input it clears, and on an empty idle input twice quits."""
    for _ in range(3):  # replies that never end by themselves
        model_server.enqueue(text("word " * 60, hold=threading.Event()))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*typed("go"))
        await wait_until(pilot, lambda: app.session.status().busy)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.session.status().busy)
        assert not app.session.status().busy
        assert any("interrupted" in str(n.content) for n in app.chat_screen.query(NoticeLine))
        await pilot.press(*typed("again"))
        await wait_until(pilot, lambda: app.session.status().busy)
        await pilot.press(*"draft", "ctrl+c")
        await wait_until(pilot, lambda: not app.session.status().busy)
        assert not app.session.status().busy
        assert prompt_of(pilot).text == "draft"  # stopping the turn kept the draft
        await pilot.press("ctrl+c")
        assert prompt_of(pilot).text == ""  # idle: Ctrl+C clears
        await pilot.press(*typed("third"))
        await wait_until(pilot, lambda: app.session.status().busy)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.session.status().busy)
        await pilot.press("ctrl+c")  # idle and empty now: the first press of two
        await pilot.pause()
        assert app.is_running
        assert any("again to quit" in str(n.message) for n in app._notifications)
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert not app.is_running


@pytest.mark.req("CV1")
async def test_esc_puts_the_queued_messages_back_in_the_input(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """Esc stops the turn; the messages queued behind it come back to the input, one a line,
    after what is being typed: nothing typed is lost, nothing is sent unseen."""
    model_server.enqueue(text("word " * 60, hold=threading.Event()))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*typed("go"))
        await wait_until(pilot, lambda: app.session.status().busy)
        await pilot.press(*typed("second"), *typed("third"))
        assert app.session.status().queue == ("second", "third")
        await pilot.press(*"draft")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.session.status().busy)
        notices = [str(n.content) for n in app.chat_screen.query(NoticeLine)]
        assert "2 queued messages back in the input" in notices
        assert app.session.status().queue == ()
        assert app.chat_screen.query_one("#prompt", HistoryInput).value == "draft\nsecond\nthird"
    assert user_prompts(model_server) == ["go"]


@pytest.mark.req("UX19")
async def test_ctrl_r_shows_the_query_it_searches_for(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """Ctrl+R shows what it searches for in the input's border, not only the match."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*typed("fix the parser"))
        await settle(pilot)
        prompt = prompt_of(pilot)
        await pilot.press(*"pars", "ctrl+r")
        assert prompt.text == "fix the parser"
        assert "search history: pars" in str(prompt.border_title)
        await pilot.press("ctrl+r")
        assert "pars" in str(prompt.border_title) and "no earlier match" in str(prompt.border_title)
        await pilot.press("right")
        assert prompt.border_title is None
        assert prompt.text == "fix the parser"


@pytest.mark.req("UX19")
async def test_ctrl_r_then_typing_searches_as_a_shell_does(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """Ctrl+R first, then the query: what is typed goes to the query (shown in the border),
    never glued to the match; Backspace edits it, Esc puts the draft back, Enter sends the
    match."""
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        for sent in ("fix the parser", "run the tests", "say hello"):
            await pilot.press(*typed(sent))
            await settle(pilot)
        prompt = prompt_of(pilot)
        await pilot.press(*"draft", "ctrl+r")
        assert "search history: draft" in str(prompt.border_title)
        await pilot.press(*["backspace"] * 5)
        assert prompt.text == "say hello"
        await pilot.press(*"pars")
        assert prompt.text == "fix the parser"
        assert "search history: pars" in str(prompt.border_title)
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"tes")
        assert prompt.text == "run the tests"
        await pilot.press("escape")
        assert (prompt.text, prompt.border_title) == ("draft", None)
        await pilot.press(*["backspace"] * 5, "ctrl+r", *"fix", "enter")
        await settle(pilot)
        assert prompt.text == ""
    assert user_prompts(model_server)[-1] == "fix the parser"


def _write(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")


@pytest.mark.req("UX16")
async def test_at_with_several_matches_opens_a_list_to_arrow_through(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    """`@` + Tab with several matches: a list; ↓ and Enter take one, Esc closes it."""
    _write(project, "src/alpha.py", "src/alpine.py")
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        popup = app.chat_screen.query_one("#command-popup", CommandPopup)
        await pilot.press(*"read @alp", "tab")
        await pilot.pause()
        assert popup.is_open
        rows = [str(popup.get_option_at_index(i).prompt) for i in range(popup.option_count)]
        assert rows == ["src/alpha.py", "src/alpine.py"]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert prompt_of(pilot).text == "read @src/alpine.py"
        assert not popup.is_open
        await pilot.press(*" and @alp", "tab")
        await pilot.pause()
        assert popup.is_open
        await pilot.press("escape")
        await pilot.pause()
        assert not popup.is_open
        assert prompt_of(pilot).text == "read @src/alpine.py and @alp"
        await pilot.press("tab", "tab")  # Tab opens the list, Tab again takes the first row
        assert prompt_of(pilot).text == "read @src/alpine.py and @src/alpha.py"
    assert model_server.requests == []


@pytest.mark.req("CV1")
async def test_cv1_a_long_queue_says_how_many_more_wait_than_it_shows(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """CV1: nothing queued goes unseen: past the panel's five lines it counts the rest."""
    streaming = threading.Event()
    model_server.enqueue(text("slow " * 20, hold=streaming))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*typed("first"))
        await wait_until(pilot, lambda: app.session.status().busy)
        for n in range(1, 8):
            await pilot.press(*typed(f"queued {n}"))
        shown = str(app.chat_screen.query_one("#queue", Static).content).splitlines()
        streaming.set()
        await settle(pilot)
    assert shown == [*(f"queued: queued {n}" for n in range(1, 5)), "… and 3 more queued"]
    assert user_prompts(model_server) == ["first", *(f"queued {n}" for n in range(1, 8))]
