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


@pytest.fixture
def full_app(project, model_server: ModelServer):  # type: ignore[no-untyped-def]
    """The app over the fully wired service (memory hooks, extraction fork) — as `wave` runs."""
    from tests.tui.conftest import fixed_clock
    from wave_tui.agent.service import AgentOptions
    from wave_tui.session.factory import create_service
    from wave_tui.tui.app import make_app

    def build():  # type: ignore[no-untyped-def]
        service = create_service(
            AgentOptions(workdir=project, environ=server_env(model_server), clock=fixed_clock)
        )
        app = make_app(service.store, service, fixed_clock)
        app.animation_level = "none"
        return app

    return build


async def _idle(pilot: Pilot[None]) -> None:
    """The turn, its extraction fork and the UI have all finished."""
    await settle(pilot)
    session = pilot.app.session  # type: ignore[attr-defined]
    for _ in range(200):
        if not session.status().background_busy:
            break
        await pilot.pause(0.02)
    await settle(pilot)


@pytest.mark.req("T1", "U3")
def test_chat_read_of_a_stale_memory_shows_the_reminder_line(
    snap_compare: Any, full_app: Any, model_server: ModelServer, paths: WavePaths
) -> None:
    """U3 / T1: the model gets the staleness reminder; the user sees one dimmed line."""
    from tests.extraction_helpers import is_fork, is_main
    from tests.tui.conftest import write

    memory = write(
        paths.memory_dir / "debugging.md",
        "---\nname: flaky test\ntype: project\n---\nThe flaky test is test_io.\n",
        10,
    )
    model_server.enqueue(
        tool_call("Read", {"file_path": str(memory)}),
        text("That memory is 10 days old; let me check test_io still exists first."),
        when=is_main,
    )
    model_server.enqueue(text("Nothing new to save."), when=is_fork)

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"what do we know about flaky tests?", "enter")
        await _idle(pilot)

    assert snap_compare(full_app(), terminal_size=SIZE, run_before=run_before)


def test_memory_preview_of_a_rule_loaded_in_this_session(
    snap_compare: Any, full_app: Any, model_server: ModelServer, seeded_memory: WavePaths
) -> None:
    """Issue 3 item 7: the browser says which file and pattern loaded a conditional rule."""
    from tests.extraction_helpers import is_fork, is_main
    from tests.tui.conftest import write

    target = write(seeded_memory.project_root / "src" / "api" / "user.ts", "export {}\n", 0)
    model_server.enqueue(tool_call("Read", {"file_path": str(target)}), text("ok"), when=is_main)
    model_server.enqueue(text("Nothing new to save."), when=is_fork)

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"read it", "enter")
        await _idle(pilot)
        await open_memory(pilot)
        await select_entry(pilot, "rule:project:api.md")

    assert snap_compare(full_app(), terminal_size=SIZE, run_before=run_before)


@pytest.mark.req("MX6")
def test_memory_browser_80x24_with_missing_reference(
    snap_compare: Any, build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """At 80 columns the preview keeps a third of the width; a missing file is marked (MX6)."""
    agents = seeded_memory.project_agents_md
    agents.write_text(agents.read_text() + "- Config lives in src/gone_config.py\n")

    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)
        await select_entry(pilot, "project:AGENTS.md#4")

    assert snap_compare(build_app(), terminal_size=(80, 24), run_before=run_before)
