"""`/rewind` and Esc Esc in the app (Pilot): the messages newest first with their files, the four
choices (keys 1–4), the code put back, the message's text back in the input and out of the next
request, files changed elsewhere asked about, and `/fork`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import fixed_clock, server_env
from tests.tui.helpers import settle, wait_until
from tests.tui.test_chat_view import accept_edits, full_app, prompt, type_line
from wave_tui.config.paths import WavePaths
from wave_tui.tui.screens.pickers import Picker
from wave_tui.tui.screens.rewind import ChoiceDialog

__all__ = ["fixed_clock", "server_env"]


def script_two_turns(model_server: ModelServer, target: Path) -> None:
    model_server.enqueue(
        tool_call("Read", {"file_path": str(target)}),
        tool_call("Write", {"file_path": str(target), "content": "two\n"}),
        text("wrote"),
        tool_call("Read", {"file_path": str(target)}),
        tool_call("Edit", {"file_path": str(target), "old_string": "two", "new_string": "three"}),
        text("edited"),
    )


def option_texts(screen: object) -> list[str]:
    options = screen.query_one(OptionList)  # type: ignore[attr-defined]
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def body_text(screen: object) -> str:
    return "\n".join(str(s.content) for s in screen.query(Static))  # type: ignore[attr-defined]


@pytest.mark.req("RW2")
@pytest.mark.req("RW3")
async def test_esc_esc_rewinds_code_and_conversation_and_the_text_returns_to_the_input(
    model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    accept_edits(paths)
    target = project / "a.txt"
    target.write_text("one\n")
    script_two_turns(model_server, target)
    app = full_app(project, model_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_line(pilot, "first prompt")
        await settle(pilot)
        await type_line(pilot, "second prompt")
        await settle(pilot)
        assert target.read_text() == "three\n"
        await pilot.press("escape", "escape")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, Picker)
        rows = option_texts(picker)
        assert "second prompt" in rows[0] and "1 file" in rows[0]  # newest first
        assert "a.txt" in rows[0]  # which files its turn changed
        assert "first prompt" in rows[1]
        assert "not tracked" in body_text(picker)
        await pilot.press("down", "enter")
        await pilot.pause()
        choice = app.screen
        assert isinstance(choice, ChoiceDialog)
        assert [t.split(". ", 1)[0] for t in option_texts(choice)] == ["1", "2", "3", "4"]
        assert "restore a.txt" in body_text(choice)
        await pilot.press("1")
        await settle(pilot)
        assert target.read_text() == "one\n"
        assert prompt(app).text == "first prompt"
        model_server.enqueue(text("fresh"))
        prompt(app).load_text("")
        await type_line(pilot, "instead")
        await settle(pilot)
    sent = json.dumps(model_server.last_request.body["messages"])
    assert "first prompt" not in sent and "second prompt" not in sent and "instead" in sent


@pytest.mark.req("RW3")
async def test_a_file_changed_elsewhere_is_listed_and_kept_when_the_user_says_so(
    model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    accept_edits(paths)
    target = project / "a.txt"
    target.write_text("one\n")
    script_two_turns(model_server, target)
    app = full_app(project, model_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_line(pilot, "first prompt")
        await settle(pilot)
        await type_line(pilot, "second prompt")
        await settle(pilot)
        target.write_text("mine\n")
        await type_line(pilot, "/rewind")
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        await pilot.press("3")  # code only
        await pilot.pause()
        asked = app.screen
        assert isinstance(asked, ChoiceDialog)
        assert "a.txt" in body_text(asked) and "changed since" in body_text(asked)
        await pilot.press("1")  # keep it
        await settle(pilot)
        assert target.read_text() == "mine\n"
        assert len([m for m in app.session.messages() if m.role == "user"]) >= 2


@pytest.mark.req("RW4")
async def test_fork_continues_in_a_copy_and_leaves_the_original_as_it_was(
    model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    model_server.enqueue(text("one"), text("two"))
    app = full_app(project, model_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_line(pilot, "first prompt")
        await settle(pilot)
        original = app.session.run_info().session_id
        before = paths.transcript(original).read_bytes()
        await type_line(pilot, "/fork")
        await settle(pilot)
        forked = app.session.run_info().session_id
        assert forked != original
        await type_line(pilot, "in the fork")
        await settle(pilot)
    assert paths.transcript(original).read_bytes() == before
    assert b"in the fork" in paths.transcript(forked).read_bytes()
    assert "first prompt" in json.dumps(model_server.last_request.body["messages"])


@pytest.mark.req("RW6")
async def test_a_conversation_rewind_offers_to_revert_the_memory_learned_since(
    model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    from tests.agent.test_extraction_review import TOPIC, script_fork_writes
    from wave_tui.features.memory.extraction import ExtractionHook
    from wave_tui.session.factory import create_service_with_extensions
    from wave_tui.session.types import AgentOptions
    from wave_tui.tui.app import make_app

    service, _extras = create_service_with_extensions(
        AgentOptions(workdir=project, environ=server_env(model_server), clock=fixed_clock)
    )
    mem = paths.memory_dir
    mem.mkdir(parents=True, exist_ok=True)
    (mem / "MEMORY.md").write_text("- [Old](old.md) — old\n")
    script_fork_writes(model_server, mem)
    app = make_app(service.store, service, fixed_clock)
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        await type_line(pilot, "we build with make dist")
        await settle(pilot)
        hook = service.extensions.of_type(ExtractionHook)
        assert hook is not None
        await hook.wait()
        assert (mem / "build.md").read_text() == TOPIC
        await type_line(pilot, "/rewind")
        await pilot.pause()
        await pilot.press("enter")  # the only message
        await pilot.pause()
        await pilot.press("2")  # conversation only
        await wait_until(pilot, lambda: "Revert" in body_text(app.screen))
        offer = app.screen
        assert isinstance(offer, ChoiceDialog)
        assert "extraction run" in body_text(offer)
        await pilot.press("1")  # revert
        await settle(pilot)
        assert not (mem / "build.md").exists()
        assert prompt(app).text == "we build with make dist"
