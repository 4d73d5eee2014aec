"""The chat screen as a daily driver: input conventions and the defects it listed."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Markdown

from tests.model_server import ModelServer, text
from tests.tui.conftest import BuildApp, fixed_clock, server_env
from tests.tui.helpers import settle
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.config.paths import WavePaths
from wave_tui.tui.app import make_app
from wave_tui.tui.editor import open_in_editor
from wave_tui.tui.widgets.chat_items import AssistantMessage, ToolBlock, UserMessage
from wave_tui.tui.widgets.history_input import HistoryInput
from wave_tui.tui.widgets.status_line import StatusLine


def _user_texts(server: ModelServer) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in server.last_request.body["messages"]
        if m["role"] == "user"
    ]


@pytest.mark.req("UX1")
async def test_ux1_a_pasted_three_line_message_reaches_the_model_whole(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(text("ok"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        app.post_message(events.Paste("first line\nsecond line\nthird line"))  # as the driver
        await pilot.pause()
        assert prompt.text == "first line\nsecond line\nthird line"
        await pilot.press("enter")
        await settle(pilot)
    assert any("first line\nsecond line\nthird line" in t for t in _user_texts(model_server))


@pytest.mark.req("UX1")
async def test_ux1_shift_enter_and_ctrl_j_insert_newlines_enter_sends(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(text("ok"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert prompt.text == "a\nb\nc"
        await pilot.press("enter")
        await settle(pilot)
        assert prompt.text == ""
    assert any(t.endswith("a\nb\nc") or "a\nb\nc" in t for t in _user_texts(model_server))


@pytest.mark.req("UX3")
async def test_ux3_continue_shows_the_restored_conversation_scrolled_to_the_end(
    model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(text("the first answer"))
    first = AgentService(
        AgentOptions(workdir=project, environ=server_env(model_server), clock=fixed_clock)
    )
    await first.run_turn("the first question")
    await first.destroy()
    service = AgentService(
        AgentOptions(
            workdir=project,
            environ=server_env(model_server),
            clock=fixed_clock,
            continue_last=True,
        )
    )
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        users = [str(w.content) for w in app.chat_screen.query(UserMessage)]
        replies = [w.message_id for w in app.chat_screen.query(AssistantMessage)]
        assert users == ["the first question"]
        assert len(replies) == 1
        markdown = app.chat_screen.query_one(AssistantMessage).query_one(Markdown)
        assert "the first answer" in markdown.source


@pytest.mark.req("UX4")
async def test_ux4_angle_brackets_in_a_reply_are_shown_as_written(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    reply = 'Use List<String> here and wrap it in <div class="x">.'
    model_server.enqueue(text(reply))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"hi", "enter")
        await settle(pilot)
        block = app.chat_screen.query_one(AssistantMessage).query_one(Markdown)
        shown = " ".join(str(child.content) for child in block.children)  # type: ignore[attr-defined]
        assert reply in shown


@pytest.mark.req("UX19")
async def test_ux19_history_persists_per_project_and_ctrl_r_searches(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    model_server.enqueue(text("one"), text("two"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"fix the parser", "enter")
        await settle(pilot)
        await pilot.press(*"run the tests", "enter")
        await settle(pilot)
    lines = paths.input_history.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["text"] for line in lines] == ["fix the parser", "run the tests"]
    again = build_app(server_env(model_server))
    async with again.run_test(size=(100, 32)) as pilot:
        await again.workers.wait_for_complete()
        prompt = again.chat_screen.query_one("#prompt", HistoryInput)
        await pilot.press("up")
        assert prompt.text == "run the tests"
        await pilot.press("ctrl+c", *"pars", "ctrl+r")
        assert prompt.text == "fix the parser"


@pytest.mark.req("UX19")
async def test_ux19_ctrl_c_clears_the_input_and_twice_on_empty_quits(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await pilot.press(*"draft")
        await pilot.press("ctrl+c")
        assert prompt.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        assert any("again to quit" in str(n.message) for n in app._notifications)
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert not app.is_running


@pytest.mark.req("UX17")
async def test_ux17_shift_tab_cycles_the_mode_and_the_status_line_shows_it(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        status = app.chat_screen.query_one("#status", StatusLine)
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            await pilot.pause()
            seen.append((app.session.status().permission_mode, str(status.content)))
    assert [mode for mode, _ in seen] == ["acceptEdits", "plan", "default"]
    assert "accept edits" in seen[0][1]
    assert "plan mode" in seen[1][1]
    assert "accept edits" not in seen[2][1] and "plan" not in seen[2][1]


@pytest.mark.req("UX8")
async def test_ux8_clear_empties_the_chat_on_screen(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(text("an answer"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"question", "enter")
        await settle(pilot)
        assert app.chat_screen.query(UserMessage)
        await pilot.press(*"/clear", "enter")
        await settle(pilot)
        assert not app.chat_screen.query(UserMessage)
        assert not app.chat_screen.query(AssistantMessage)


@pytest.mark.req("UX19")
async def test_ux19_ctrl_o_toggles_the_last_tool_output(
    build_app: BuildApp, model_server: ModelServer, project: Path
) -> None:
    from tests.model_server import tool_call

    (project / "notes.txt").write_text("hello notes\n", encoding="utf-8")
    model_server.enqueue(tool_call("Read", {"file_path": str(project / "notes.txt")}), text("ok"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"read it", "enter")
        await settle(pilot)
        block = app.chat_screen.query_one(ToolBlock)
        output = block.query_one(".tool-output")
        assert output.collapsed  # type: ignore[attr-defined]
        await pilot.press("ctrl+o")
        assert not output.collapsed  # type: ignore[attr-defined]


class _SuspendingApp:
    """Records whether the app was resumed, as `App.suspend` does: only when the body returns."""

    def __init__(self) -> None:
        self.resumed = False
        self.notes: list[str] = []

    @contextlib.contextmanager
    def suspend(self) -> Iterator[None]:
        yield
        self.resumed = True

    def notify(self, message: str, **_: object) -> None:
        self.notes.append(message)


@pytest.mark.req("UX5")
def test_ux5_a_mistyped_editor_is_reported_and_the_app_resumes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "no-such-editor-wave-test")
    app = _SuspendingApp()
    assert open_in_editor(app, tmp_path / "x.md") is False  # type: ignore[arg-type]
    assert app.resumed
    assert any("Could not start no-such-editor-wave-test" in note for note in app.notes)
