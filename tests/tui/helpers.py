"""Small helpers shared by the TUI tests."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from wave_tui.tui.app import WaveApp
from wave_tui.tui.widgets.row_list import RowList


async def open_memory(pilot: Pilot[None]) -> RowList:
    await pilot.press("f2")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()  # the preview's provenance of the first entry
    await pilot.pause()
    return pilot.app.screen.query_one("#memory-table", RowList)


async def select_entry(pilot: Pilot[None], entry_id: str) -> None:
    """Put the list's cursor on `entry_id` and give the list the focus (its keys act)."""
    table = pilot.app.screen.query_one("#memory-table", RowList)
    table.focus()
    table.move_cursor(table.get_row_index(entry_id))
    await pilot.pause()  # the list handles the move and posts Highlighted ...
    await pilot.pause()  # ... which bubbles to the screen: the preview shows the entry
    await pilot.app.workers.wait_for_complete()  # ... and its provenance, read off the UI thread
    await pilot.pause()


def row_texts(table: RowList, index: int) -> list[str]:
    return list(table.row_at(index).cells)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the agent is idle and the UI has caught up with its events."""
    app = pilot.app
    assert isinstance(app, WaveApp)
    await app.session.wait_idle()
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause(0.05)
    await pilot.pause()


async def wait_until(pilot: Pilot[None], condition: Callable[[], bool], tries: int = 200) -> None:
    """Pause in 20 ms steps until `condition()` holds or `tries` steps passed (the caller
    asserts what it needs: a bare wait says nothing about why it ended)."""
    for _ in range(tries):
        await pilot.pause(0.02)
        if condition():
            return
