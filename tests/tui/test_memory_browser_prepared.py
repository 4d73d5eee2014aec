"""The memory browser is built after the first frame, so F2 only fills and paints it (SP4); what
it shows is still read at F2: a file changed since start-up shows (UX7)."""

from __future__ import annotations

import pytest

from tests.tui.conftest import BuildApp, write
from tests.tui.helpers import open_memory
from wave_tui.config.paths import WavePaths
from wave_tui.tui.app import WaveApp
from wave_tui.tui.screens.memory import MemoryScreen
from wave_tui.tui.widgets.row_list import RowList


def built_browsers(app: WaveApp) -> list[MemoryScreen]:
    return [node for node in app._registry if isinstance(node, MemoryScreen)]


def titles(table: RowList) -> list[str]:
    return [table.row_at(i).cells[0] for i in range(table.row_count)]


@pytest.mark.req("SP4")
async def test_the_browser_is_built_before_f2_and_shows_the_files_as_they_are_at_f2(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    app = build_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        [browser] = built_browsers(app)  # composed and styled while the chat is shown
        assert app.screen is app.chat_screen
        table = browser.query_one("#memory-table", RowList)
        assert table.is_mounted and table.row_count == 0  # nothing read for it yet
        write(seeded_memory.project_agents_md, "- Written after start-up\n", 0)

        shown = await open_memory(pilot)

        assert app.screen is browser and shown is table
        assert "Written after start-up" in titles(shown)
        assert "Run the tests with `pytest -q`" not in titles(shown)
        assert app.focused is shown  # the list has the focus, as when it is built at F2


@pytest.mark.req("SP4")
async def test_f2_before_the_browser_is_built_opens_one_at_once(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """F2 pressed before the app got to build the browser: it is built then, and only once."""
    app = build_app()
    app._prepare_memory_screen = lambda: None  # type: ignore[method-assign]
    async with app.run_test(size=(100, 32)) as pilot:
        table = await open_memory(pilot)
        assert "Run the tests with `pytest -q`" in titles(table)
        del app._prepare_memory_screen  # the real one, now that the mode's screen exists
        app._prepare_memory_screen()
        await pilot.pause()
        assert built_browsers(app) == [app.screen]
