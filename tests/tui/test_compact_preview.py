"""`/compact` in the app previews what is kept and dropped and the summary draft (MM7)."""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from tests.model_server import ModelServer, text
from tests.tui.conftest import SIZE, BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.features.memory.context_report import SourceKind
from wave_tui.tui.app import WaveApp
from wave_tui.tui.screens.compact_preview import CompactPreview


async def _compacted(pilot: Pilot[None]) -> WaveApp:
    """Chat, `/compact`, and Enter on its preview: applied."""
    app = await _chat_then_compact(pilot)
    await pilot.press("enter")
    await settle(pilot)
    return app


async def _chat_then_compact(pilot: Pilot[None]) -> WaveApp:
    app = pilot.app
    assert isinstance(app, WaveApp)
    for word in ("first", "second", "third"):
        await pilot.press(*word, "enter")
        await settle(pilot)
    app.chat_screen.query_one("#prompt").insert("/compact")  # type: ignore[attr-defined]
    await pilot.press("enter")
    await settle(pilot)
    return app


def _script(server: ModelServer) -> None:
    server.enqueue(text("answer one"), text("answer two"), text("answer three"))
    server.enqueue(text("DRAFT: the user said first and second."))


def _static(app: WaveApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)


@pytest.mark.req("MM7")
async def test_the_preview_names_kept_and_dropped_and_esc_leaves_the_conversation(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    _script(model_server)
    app = build_app(server_env(model_server))
    async with app.run_test(size=SIZE) as pilot:
        app = await _chat_then_compact(pilot)
        assert isinstance(app.screen, CompactPreview)
        dropped = _static(app, "#compact-dropped")
        assert "you: first" in dropped and "assistant: answer one" in dropped
        assert "you: third" in _static(app, "#compact-kept")
        assert "DRAFT: the user said first" in _static(app, "#compact-summary")
        before = [m.id for m in app.session.messages()]
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, CompactPreview)
        assert [m.id for m in app.session.messages()] == before  # nothing compacted


@pytest.mark.req("MM7")
async def test_enter_applies_and_the_record_lists_what_was_dropped(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    _script(model_server)
    app = build_app(server_env(model_server))
    async with app.run_test(size=SIZE) as pilot:
        app = await _compacted(pilot)
        messages = app.session.messages()
    summary = messages[0]
    assert summary.kind == "compress" and summary.content.startswith("DRAFT: the user said")
    dropped = summary.meta["compaction"]["dropped"]
    assert dropped == ["you: first", "assistant: answer one"]  # the last rounds stay verbatim
    assert [m.content for m in messages[1:] if m.role == "user"] == ["second", "third"]


@pytest.mark.req("MM7")
async def test_e_edits_the_summary_before_it_is_applied(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    _script(model_server)
    app = build_app(server_env(model_server))
    async with app.run_test(size=SIZE) as pilot:
        app = await _chat_then_compact(pilot)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("end", *" EDITED", "ctrl+s")
        await settle(pilot)
        messages = app.session.messages()
    assert messages[0].kind == "compress"
    assert messages[0].content.startswith("DRAFT: the user said first and second. EDITED")


def test_the_compaction_preview_snapshot(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer, frozen_time: Any
) -> None:
    """Kept, dropped and the draft, with the keys in the footer."""
    _script(model_server)

    async def run_before(pilot: Pilot[None]) -> None:
        await _chat_then_compact(pilot)

    assert snap_compare(
        build_app(server_env(model_server)), terminal_size=SIZE, run_before=run_before
    )


@pytest.mark.req("CV14")
async def test_after_compact_in_the_app_context_adds_up_to_its_rows(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """`/compact` applied from its preview, then `/context`: the total it shows is the sum of
    the rows it shows (it was the pre-compaction request's)."""
    from wave_tui.tui.screens.context_view import ContextView

    _script(model_server)
    app = build_app(server_env(model_server))
    async with app.run_test(size=SIZE) as pilot:
        app = await _compacted(pilot)
        assert app.session.messages()[0].kind == "compress"
        app.chat_screen.query_one("#prompt").insert("/context")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ContextView)
        report = _static(app, "#context-report")
    total = int(re.search(r"Next request: ~?([\d,]+) tokens", report)[1].replace(",", ""))
    rows = [
        int(line.split()[-2].replace(",", ""))
        for line in report.splitlines()
        if line.startswith("  ") and line.split()[0] in get_args(SourceKind)
    ]
    assert rows and sum(rows) == total
    assert re.search(r"conversation +\d+ messages", report)
