"""`wave` paints the chat before its session exists (UX14): the settings, memory, tools and the
agent are built after the first frame. The frame says only what is true ("starting…"), and the
input takes typing at once: what is sent meanwhile goes once the session is up, nothing lost."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tests.model_server import ModelServer, RecordedRequest, text
from tests.tui.conftest import server_env
from tests.tui.helpers import settle, wait_until
from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import create_session
from wave_tui.session.types import AgentOptions
from wave_tui.tui.app import Opened, SessionOpening, WaveApp, make_app
from wave_tui.tui.widgets.chat_items import UserMessage
from wave_tui.tui.widgets.history_input import HistoryInput
from wave_tui.tui.widgets.status_line import StatusLine


def opening_app(
    paths: WavePaths, environ: dict[str, str], release: threading.Event, ready: list[str]
) -> WaveApp:
    """The app as `wave` makes it, its session opened only once `release` is set."""

    def open_session() -> Opened:
        assert release.wait(30), "the test never let the session open"
        options = AgentOptions(workdir=paths.project_root, environ=environ)
        return Opened(create_session(options))

    app = make_app(
        None, None, opening=SessionOpening(paths, open_session, lambda: ready.append("up"))
    )
    app.animation_level = "none"
    return app


def status_text(app: WaveApp) -> str:
    return str(app.chat_screen.query_one("#status", StatusLine).render())


def user_texts(request: RecordedRequest) -> list[str]:
    return [json.dumps(m["content"]) for m in request.body["messages"] if m["role"] == "user"]


@pytest.mark.req("UX14")
async def test_ux14_what_is_sent_before_the_session_is_up_is_sent_once_it_is(
    model_server: ModelServer, paths: WavePaths
) -> None:
    release = threading.Event()
    ready: list[str] = []
    model_server.enqueue(text("hello back"))
    app = opening_app(paths, server_env(model_server), release, ready)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert not app.session_ready
        # Honest: nothing of the settings is claimed (no model, no "no model configured").
        assert "starting…" in status_text(app)
        assert "no model configured" not in status_text(app)
        assert not app.chat_screen.query("#first-run")
        await pilot.press("h", "i", "enter")
        await pilot.pause()
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        assert prompt.text == ""  # taken at once, as always (CV1)
        assert "queued: hi" in str(app.chat_screen.query_one("#queue").render())
        assert model_server.requests == []
        release.set()
        await wait_until(pilot, lambda: app.session_ready and not app.chat_screen._waiting)
        await settle(pilot)
        assert ready == ["up"]
        assert "test-model" in status_text(app) and "starting" not in status_text(app)
        # The turn's request carries the message (the extraction fork may follow it).
        assert any("hi" in t for t in user_texts(model_server.requests[0]))
        shown = [str(m.render()) for m in app.chat_screen.query(UserMessage)]
        assert shown == ["hi"]  # shown once, as a sent message
        assert not app.chat_screen.query_one("#queue").display


@pytest.mark.req("UX14")
async def test_ux14_keys_that_need_the_session_wait_for_it_in_order(
    model_server: ModelServer, paths: WavePaths, project: Path
) -> None:
    """Tab completes `@path` through the session: typed while it opens, it and the keys after it
    run once it is up, in the order typed; F2 shows the memory browser once it is up."""
    (project / "AGENTS.md").write_text("- Always run the linter\n", encoding="utf-8")
    release = threading.Event()
    app = opening_app(paths, server_env(model_server), release, [])
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await pilot.press(*"read @AGE", "tab", *" now")
        await pilot.pause()
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        assert prompt.text == "read @AGE"
        await pilot.press("f2")
        await pilot.pause()
        assert app.current_mode == "chat"
        release.set()
        await wait_until(pilot, lambda: app.current_mode == "memory")
        await pilot.press("f1")
        await wait_until(pilot, lambda: prompt.text == "read @AGENTS.md now")


@pytest.mark.req("UX14")
async def test_ux14_what_was_sent_comes_back_to_the_input_when_the_agent_cannot_start(
    paths: WavePaths,
) -> None:
    release = threading.Event()
    app = opening_app(paths, {"WAVE_BASE_URL": "not a url", "WAVE_MODEL": "m"}, release, [])

    def broken() -> Opened:
        from wave_tui.session.facade import AgentSession

        release.wait(30)
        return Opened(AgentSession.offline(paths, environ={}), startup_error="no agent")

    assert app._opening is not None
    app._opening = SessionOpening(paths, broken, lambda: None)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await pilot.press("h", "i", "enter")
        release.set()
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await wait_until(pilot, lambda: prompt.text == "hi")
