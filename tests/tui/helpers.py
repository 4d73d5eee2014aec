"""Small helpers shared by the TUI tests."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable

from wave_tui.tui.app import WaveApp


async def open_memory(pilot: Pilot[None]) -> DataTable[object]:
    await pilot.press("f2")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return pilot.app.screen.query_one("#memory-table", DataTable)


async def select_entry(pilot: Pilot[None], entry_id: str) -> None:
    table = pilot.app.screen.query_one("#memory-table", DataTable)
    table.move_cursor(row=table.get_row_index(entry_id), animate=False)
    await pilot.pause()


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the agent is idle and the UI has caught up with its events."""
    app = pilot.app
    assert isinstance(app, WaveApp)
    await app.session.wait_idle()
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause(0.05)
    await pilot.pause()
