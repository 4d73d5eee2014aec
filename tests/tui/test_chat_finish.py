"""The chat screen's remaining issue-14 defects (UX6, UX8, UX12, UX13, UX19): each pinned here."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Static

from tests.model_server import ModelServer, text
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import AgentSession
from wave_tui.session.types import AgentOptions, AgentService
from wave_tui.tui.app import PendingAgent, Progress, WaveApp, make_app
from wave_tui.tui.widgets.background_indicator import BackgroundIndicator
from wave_tui.tui.widgets.chat_items import ErrorLine, NoticeLine, UserMessage
from wave_tui.tui.widgets.status_line import StatusLine


@pytest.mark.req("UX19")
async def test_ux19_status_line_shows_ctx_as_tokens_then_percent(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(text("ok"))
    app = build_app({**server_env(model_server), "WAVE_MAX_INPUT_TOKENS": "100000"})
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        line = str(app.chat_screen.query_one("#status", StatusLine).render())
    assert "tokens (" in line, line
    assert "%) tokens" not in line, line


@pytest.mark.req("UX12")
async def test_ux12_a_reply_cut_at_the_output_limit_says_so_in_the_chat(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(dataclasses.replace(text("the answer is"), cut=True))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        lines = [str(n.render()) for n in app.chat_screen.query(NoticeLine)]
    assert lines == ["reply cut at the output limit"]


@pytest.mark.req("UX8")
async def test_ux8_configuring_an_endpoint_while_running_drops_the_first_run_panel_at_once(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert app.chat_screen.query("#first-run").first().display
        settings = {
            "model": "test-model",
            "env": {"WAVE_BASE_URL": model_server.base_url, "WAVE_API_KEY": "k"},
        }
        paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
        paths.user_settings.write_text(json.dumps(settings), encoding="utf-8")
        app.session.store.refresh()  # what the settings watcher does on a change
        await pilot.pause()
        status = str(app.chat_screen.query_one("#status", StatusLine).render())
        assert "no model configured" not in status
        assert "test-model" in status
        assert not app.chat_screen.query("#first-run").first().display
        model_server.enqueue(text("configured reply"))
        await pilot.press("h", "i", "enter")
        await settle(pilot)
    assert model_server.requests


@pytest.mark.req("UX8")
async def test_ux8_ctx_follows_a_compact(build_app: BuildApp, model_server: ModelServer) -> None:
    model_server.enqueue(text("a long answer " * 400), text("short summary"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(120, 32)) as pilot:
        status = app.chat_screen.query_one("#status", StatusLine)
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        before = status.info.context_tokens
        app.chat_screen.query_one("#prompt").insert("/compact")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter")  # the preview: apply it
        await settle(pilot)
        after = status.info.context_tokens
        context = app.session.context_report()
        report = context.render() if context is not None else ""
    assert before is not None and after is not None
    assert after < before, (before, after)
    # The estimate is the whole next request (system, tools, memory, the summary), as /context
    # counts it: not the messages alone.
    assert f"{after:,} tokens of" in report, report.splitlines()[:3]


BROKEN = '{"model": "test-model", "env": {"WAVE_BASE_URL": "%s", "WAVE_API_KEY": "k",}}'


@pytest.mark.req("UX6")
async def test_ux6_a_broken_settings_file_is_named_first_and_its_fix_applies_next_turn(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(BROKEN % model_server.base_url, encoding="utf-8")
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        log = app.chat_screen.query_one("#chat-log")
        first = log.children[0]
        assert first.id == "settings-problems"
        assert "settings.json: invalid JSON" in str(first.render())
        assert first.region.y < 5  # on screen, above the how-to-configure panel
        paths.user_settings.write_text(
            (BROKEN % model_server.base_url).replace(",}}", "}}"), encoding="utf-8"
        )
        app.session.store.refresh()
        await pilot.pause()
        assert not first.display
        model_server.enqueue(text("fixed"))
        await pilot.press("h", "i", "enter")
        await settle(pilot)
    assert model_server.requests


def _indicator_text(app: WaveApp) -> str | None:
    found = app.screen.query(BackgroundIndicator)
    if not found or not found.first().display:
        return None
    return str(found.first().query_one(Static).render())


@pytest.mark.req("UX13")
@pytest.mark.parametrize("mode", ["chat", "memory", "settings"])
async def test_ux13_the_extraction_indicator_shows_on_every_screen_at_80_columns(
    build_app: BuildApp, mode: str
) -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.switch_mode(mode)
        await pilot.pause()
        assert app.session.service is not None
        app.session.service.publish(ev.BackgroundChanged("extraction", True, "saving"))
        await pilot.pause()
        assert _indicator_text(app) == "● extraction: saving"
        indicator = app.screen.query_one(BackgroundIndicator)
        assert indicator.region.right <= 80 and indicator.region.y == 0
        app.session.service.publish(ev.BackgroundChanged("extraction", False))
        await pilot.pause()
        assert _indicator_text(app) is None


@pytest.mark.req("UX13")
async def test_ux13_the_indicator_follows_a_switch_to_another_screen(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(120, 32)) as pilot:
        assert app.session.service is not None
        app.session.service.publish(ev.BackgroundChanged("extraction", True, "saving"))
        await pilot.pause()
        assert _indicator_text(app) is None  # wide chat: the status line shows it
        status = str(app.chat_screen.query_one("#status", StatusLine).render())
        assert "extraction: saving" in status
        await pilot.press("f2")
        await pilot.pause()
        assert _indicator_text(app) == "● extraction: saving"


@pytest.mark.req("UX14")
async def test_ux14_the_app_opens_at_once_with_progress_while_the_model_starts(
    model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    release = threading.Event()
    progressed = threading.Event()

    def start(progress: Progress) -> tuple[AgentService, str | None]:
        progress("assembling the bundled local model…")
        progressed.set()
        release.wait(30)
        options = AgentOptions(workdir=project, environ=server_env(model_server))
        return AgentService(options), "wave: local model ready"

    pending = PendingAgent("starting the local model tiny…", start)
    session = AgentSession.offline(paths, environ={})
    app = make_app(None, session, pending=pending, model_label="local: tiny")
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        status = str(app.chat_screen.query_one("#status", StatusLine).render())
        assert "local: tiny (starting)" in status and "no model configured" not in status
        starting = app.chat_screen.query_one("#starting", Static)
        assert "local model" in str(starting.render())
        assert not app.chat_screen.query("#first-run")  # not "no model configured" help
        await asyncio.to_thread(progressed.wait, 30)
        await pilot.pause()
        await pilot.pause()
        assert "assembling" in str(starting.render())
        await pilot.press("h", "i", "enter")
        await pilot.pause()
        errors = [str(e.render()) for e in app.chat_screen.query(ErrorLine)]
        assert any("still starting" in e for e in errors)
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.chat_screen.query("#starting")
        status = str(app.chat_screen.query_one("#status", StatusLine).render())
        assert "local: tiny" in status and "starting" not in status
        model_server.enqueue(text("hello from the model"))
        await pilot.press("h", "i", "enter")
        await settle(pilot)
    assert model_server.requests


@pytest.mark.req("UX19")
@pytest.mark.parametrize("enabled", [True, False])
async def test_ux19_a_bell_rings_when_a_turn_ends_while_the_terminal_is_unfocused(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths, enabled: bool
) -> None:
    if not enabled:
        paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
        paths.user_settings.write_text('{"notifications": false}', encoding="utf-8")
    model_server.enqueue(text("first"), text("second"))
    app = build_app(server_env(model_server))
    rings: list[int] = []
    async with app.run_test(size=(100, 32)) as pilot:
        app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        assert rings == []  # focused: no bell
        app.post_message(events.AppBlur())
        await pilot.pause()
        await app.session.send("again")
        await settle(pilot)
    assert rings == ([1] if enabled else [])


@pytest.mark.req("UX16")
async def test_ux16_the_chat_shows_an_attachment_as_one_line_not_the_file(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    (project / "notes.md").write_text("SECRET-BODY-OF-THE-FILE\n", encoding="utf-8")
    model_server.enqueue(text("ok"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await app.session.send("look at @notes.md please")
        await settle(pilot)
        shown = [str(m.render()) for m in app.chat_screen.query(UserMessage)]
    assert shown == ["look at @notes.md please\n(attached: notes.md)"]
    assert "SECRET-BODY-OF-THE-FILE" in str(model_server.last_request.body["messages"])


@pytest.mark.req("UX8")
async def test_ux8_a_clear_queued_behind_a_turn_clears_the_screen_when_it_runs(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    streaming = threading.Event()
    model_server.enqueue(text("slow " * 100, hold=streaming), text("after clear"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await app.session.send("first question")
        await pilot.pause()
        assert app.session.status().busy
        await pilot.press(*"/clear", "enter")
        await pilot.pause()
        assert [str(m.render()) for m in app.chat_screen.query(UserMessage)] == ["first question"]
        streaming.set()
        await settle(pilot)
        assert not app.chat_screen.query(UserMessage)  # cleared once /clear ran
        await app.session.send("next")
        await settle(pilot)
        shown = [str(m.render()) for m in app.chat_screen.query(UserMessage)]
    assert shown == ["next"]


@pytest.mark.req("UX3")
async def test_ux3_a_continued_session_shows_its_context_size_before_the_first_reply(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(text("an earlier answer " * 100))
    env = server_env(model_server)
    first = AgentService(AgentOptions(workdir=project, environ=env))
    await first.run_turn("an earlier question")
    await first.destroy()
    service = AgentService(AgentOptions(workdir=project, environ=env, continue_last=True))
    app = make_app(service.store, service)
    app.animation_level = "none"
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.pause()
        info = app.chat_screen.query_one("#status", StatusLine).info
        context = app.session.context_report()
        report = context.render() if context is not None else ""
    assert info.context_tokens is not None and info.context_tokens > 300
    assert f"{info.context_tokens:,} tokens of" in report  # the next request, not the messages


@pytest.mark.req("U1")
async def test_u1_a_reply_finishing_right_after_its_first_delta_keeps_the_app_running() -> None:
    """The reply block once used Textual's MarkdownStream, whose `stop()` awaits a task it has
    just cancelled: cancelled before its first step, that task raised CancelledError into the
    app's message loop, and the app ended quietly (exit 0, an empty screen) — the tmux flow's
    and the Pilot waits' intermittent failure."""
    from textual.app import App, ComposeResult

    from wave_tui.tui.widgets.chat_items import AssistantMessage

    class OneReply(App[None]):
        def compose(self) -> ComposeResult:
            yield AssistantMessage("m1")

    app = OneReply()
    async with app.run_test() as pilot:
        block = app.query_one(AssistantMessage)
        await block.append_text("")
        await block._flush()  # a batch with nothing in it, then the reply ends at once
        await block.finish("hello <b>there</b>")
        await pilot.pause()
        assert app.is_running
        shown = block._reply().source
    assert shown == "hello <b>there</b>"
