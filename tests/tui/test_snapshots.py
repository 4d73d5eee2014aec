"""Snapshot tests of the rendered screens (U3). Update with `--snapshot-update`, review first."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import SIZE, BuildApp, server_env
from tests.tui.helpers import open_memory, select_entry, settle
from wave_tui.config.paths import WavePaths

pytestmark = pytest.mark.usefixtures("frozen_time")


def test_memory_list_all_scopes_and_ages(
    snap_compare: Any, build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """Project, user, auto and rule entries aged 0/1/2/40 days; stale badges past one day."""

    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


def test_memory_preview_of_stale_memory(
    snap_compare: Any, build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """The preview of a 40-day-old auto memory shows the staleness reminder."""

    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)
        await select_entry(pilot, "auto:redis_debugging.md")

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


def test_memory_preview_of_rule(
    snap_compare: Any, build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """A conditional rule says whether it is active and why."""

    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)
        await select_entry(pilot, "rule:project:api.md")

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


def test_memory_delete_confirmation(
    snap_compare: Any, build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)
        await select_entry(pilot, "project:AGENTS.md#2")
        await pilot.press("d")
        await pilot.pause()

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


def test_settings_screen(snap_compare: Any, build_app: BuildApp) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("f3")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


def test_settings_screen_invalid_frequency(snap_compare: Any, build_app: BuildApp) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("f3")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        frequency = pilot.app.screen.query_one("#frequency", Input)
        frequency.focus()
        frequency.value = ""
        await pilot.press("1", "5", "0")
        await pilot.pause()

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)


def test_chat_streamed_reply_and_tool_block(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    (paths.project_root / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    model_server.enqueue(
        tool_call(
            "Read", {"file_path": str(paths.project_root / "notes.txt")}, reasoning="Look first."
        ),
        text(
            "The file has **two** lines:\n\n1. `alpha`\n2. `beta`\n\nMarkup like [b]this[/b] "
            "stays literal.",
            reasoning="Two lines, easy.",
        ),
    )

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"what is in notes.txt?")
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(
        build_app(server_env(model_server)), terminal_size=SIZE, run_before=run_before
    )


def test_first_run_without_a_model(snap_compare: Any, build_app: BuildApp) -> None:
    """No endpoint configured: chat explains how to configure one instead of failing."""
    assert snap_compare(build_app(), terminal_size=SIZE)
