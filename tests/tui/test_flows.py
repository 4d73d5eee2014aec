"""Pilot tests of the flows: delete (M3), settings taking effect (U4), typing while busy, ..."""

from __future__ import annotations

import json
import threading

import pytest
from textual.widgets import Input, Static, Switch

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import PROJECT_AGENTS, BuildApp, server_env
from tests.tui.helpers import open_memory, row_texts, select_entry, settle, wait_until
from wave_tui.agent import events as ev
from wave_tui.config.paths import WavePaths
from wave_tui.tui.messages import AgentEventPosted
from wave_tui.tui.screens.dialogs import ConfirmDelete, MemoryTargetDialog, PermissionDialog
from wave_tui.tui.widgets.chat_items import NoticeLine, ToolBlock, UserMessage
from wave_tui.tui.widgets.history_input import HistoryInput
from wave_tui.tui.widgets.status_line import StatusLine

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("M3", "U4")


def status_text(app: object) -> str:
    return str(app.chat_screen.query_one("#status", StatusLine).content)  # type: ignore[attr-defined]


async def test_delete_removes_only_that_entry_from_its_file(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        table = await open_memory(pilot)
        await select_entry(pilot, "project:AGENTS.md#2")
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDelete)
        await pilot.press("y")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        expected = PROJECT_AGENTS.replace("- API handlers live in src/api\n", "")
        assert seeded_memory.project_agents_md.read_text(encoding="utf-8") == expected
        keys = table.keys
        assert "project:AGENTS.md#2" in keys  # ids are positional: the third item moved up
        assert table.row_count == 13  # 4 group rows + 9 entries (10 before, incl. the free text)
        assert "API handlers" not in json.dumps(row_texts(table, 3))


async def test_cancelled_delete_changes_nothing(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await open_memory(pilot)
        await select_entry(pilot, "user:AGENTS.md#1")
        await pilot.press("d", "n")
        await pilot.pause()
        assert seeded_memory.user_agents_md.read_text(encoding="utf-8").startswith("- Prefer")


async def test_filter_as_you_type(build_app: BuildApp, seeded_memory: WavePaths) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        table = await open_memory(pilot)
        await pilot.press("slash", *"redis")
        await pilot.pause()
        assert table.keys == ["group:auto", "auto:redis_debugging.md"]
        await pilot.press("enter")
        assert app.screen.focused is table


async def test_saved_settings_change_the_next_turn(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(json.dumps({"somethingElse": 7}), encoding="utf-8")
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"hello", "enter")
        await settle(pilot)
        first = model_server.last_request.body["messages"][0]["content"]
        assert "French" not in json.dumps(first)

        await pilot.press("f3")
        await app.workers.wait_for_complete()
        screen = app.screen
        screen.query_one("#language", Input).value = "French"
        screen.query_one("#auto-memory", Switch).value = False
        await pilot.press("ctrl+s")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        saved = json.loads(paths.user_settings.read_text(encoding="utf-8"))
        assert saved == {"somethingElse": 7, "language": "French", "autoMemoryEnabled": False}

        await pilot.press("f1")
        await pilot.pause()
        assert "auto memory off" in status_text(app)
        await pilot.press(*"again", "enter")
        await settle(pilot)
        system = json.dumps(model_server.last_request.body["messages"][0]["content"])
        assert "Always reply to the user in this language: French." in system


async def test_typing_works_while_the_agent_is_busy(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    streaming = threading.Event()
    model_server.enqueue(text("one two three four five six seven eight", hold=streaming))
    model_server.enqueue(text("second answer"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"first", "enter")
        await wait_until(pilot, lambda: app.session.status().busy, tries=100)
        assert app.session.status().busy
        await pilot.press(*"second", "enter")
        await pilot.pause()
        assert app.session.status().busy  # still streaming the first reply
        queue = app.chat_screen.query_one("#queue", Static)
        assert queue.display and "second" in str(queue.content)
        await pilot.press(*"draft")
        assert app.chat_screen.query_one("#prompt", HistoryInput).value == "draft"
        streaming.set()
        await settle(pilot)
        users = [str(u.content) for u in app.chat_screen.query(UserMessage)]
        assert users == ["first", "second"]
        assert not queue.display


async def test_escape_aborts_the_turn(build_app: BuildApp, model_server: ModelServer) -> None:
    model_server.enqueue(text(" ".join(["word"] * 60), hold=threading.Event()))  # never ends
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: app.session.status().busy, tries=100)
        await pilot.press("escape")
        await settle(pilot)
        notices = [str(n.content) for n in app.chat_screen.query(NoticeLine)]
        assert any("interrupted" in n for n in notices)


async def test_history_walks_back_and_forward(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"one", "enter", *"two", "enter")
        await settle(pilot)
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        await pilot.press("up")
        assert prompt.value == "two"
        await pilot.press("up")
        assert prompt.value == "one"
        await pilot.press("down", "down")
        assert prompt.value == ""


async def test_permission_request_is_answered_through_the_modal(
    build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    target = paths.project_root / "made.txt"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "x"}), text("done")
    )
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"write it", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionDialog))
        assert isinstance(app.screen, PermissionDialog)
        assert app.screen.key_arg == "made.txt"
        await pilot.press("n")
        await settle(pilot)
        assert not target.exists()
        tool = app.chat_screen.query_one(ToolBlock)
        assert tool.status.startswith("✗")


async def test_quick_add_saves_and_warns_about_duplicates(
    build_app: BuildApp, paths: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        prompt.value = "# Use uv for installs"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MemoryTargetDialog)
        await pilot.press("p")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert paths.project_agents_md.read_text(encoding="utf-8") == "- Use uv for installs\n"
        prompt.value = "# use UV for installs."
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("p")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert paths.project_agents_md.read_text(encoding="utf-8") == "- Use uv for installs\n"
        titles = [n.title for n in app._notifications]
        assert "Duplicate memory" in titles


async def test_notices_shown_meta_messages_hidden_background_spinner(
    build_app: BuildApp,
) -> None:
    from wave_tui.llm.types import Message

    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        app.post_message(AgentEventPosted(ev.Notice("rule", "loaded [b]api.md[/b]")))
        app.post_message(AgentEventPosted(ev.MetaMessageAdded(Message.user("x", is_meta=True))))
        # Through the service, as the extraction fork reports it.
        app.session.service._emit(ev.BackgroundChanged("extraction", True, "saving"))
        await pilot.pause()
        notices = [str(n.content) for n in app.chat_screen.query(NoticeLine)]
        assert notices == ["rule: loaded [b]api.md[/b]"]
        assert not app.chat_screen.query(UserMessage)
        assert "extraction: saving" in status_text(app)
        app.session.service._emit(ev.BackgroundChanged("extraction", False))
        await pilot.pause()
        assert "extraction" not in status_text(app)


async def test_memory_browser_has_a_palette_command(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Memory" in titles and "Settings" in titles
        await pilot.press("f2")
        await pilot.pause()
        assert app.current_mode == "memory"


async def test_a_failed_delete_is_reported_and_the_app_keeps_running(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await open_memory(pilot)
        await select_entry(pilot, "user:AGENTS.md#2")
        seeded_memory.user_agents_md.write_text("- Something else entirely\n", encoding="utf-8")
        await pilot.press("d", "y")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert errors and errors[0].startswith("Not deleted:")
        assert app.is_running
        text = seeded_memory.user_agents_md.read_text(encoding="utf-8")
        assert text == "- Something else entirely\n"
