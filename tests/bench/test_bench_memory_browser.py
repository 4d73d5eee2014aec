"""The memory browser at scale (issue 20 item 6): 10,000 entries to a painted browser, and the
browser opened empty, next to a bare DataTable given the same rows in the same run.

`pytest tests/bench/test_bench_memory_browser.py -m bench -s` prints wave's figures, the bare
table's and the ratio (no timed asserts; goals: ≤ 150 ms at 10k, ≤ 50 ms empty).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.tui.app import make_app
from wave_tui.tui.widgets.row_list import RowList

ENTRIES = 10_000
RUNS = 3
ROWS = [(f"Memory entry number {i}", "—", "project", "today", "") for i in range(ENTRIES)]


class BareTable(App[None]):
    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Title", "Type", "Scope", "Age", "")
        table.add_rows(ROWS)


def browser_open(project: Path, expected_rows: int) -> float:
    """Seconds from F2 to the painted browser holding every row."""

    async def run() -> float:
        environ = {"WAVE_BASE_URL": "http://127.0.0.1:9/v1", "WAVE_MODEL": "m", "WAVE_LOCAL": "0"}
        service = AgentService(AgentOptions(workdir=project, environ=environ))
        app = make_app(service.store, service)
        app.animation_level = "none"
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            start = time.perf_counter()
            await pilot.press("f2")
            await app.workers.wait_for_complete()
            await pilot.pause()
            elapsed = time.perf_counter() - start
            assert app.screen.query_one("#memory-table", RowList).row_count == expected_rows
            return elapsed

    return asyncio.run(run())


def bare_table() -> float:
    async def run() -> float:
        app = BareTable()
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            start = time.perf_counter()
            # The same measure as the browser's: from a running app to the painted rows.
            table = app.query_one(DataTable)
            table.clear()
            table.add_rows(ROWS)
            await pilot.pause()
            await pilot.pause()
            return time.perf_counter() - start

    return asyncio.run(run())


def median(measure: object, *args: object) -> float:
    return statistics.median(measure(*args) for _ in range(RUNS))  # type: ignore[operator]


@pytest.mark.bench
def test_bench_memory_browser_10k_and_empty_vs_bare_datatable(
    project: Path, tmp_path: Path
) -> None:
    """Prints the figures and ratios (issue 20 item 6); asserts only that every row is there."""
    empty = tmp_path / "empty"
    empty.mkdir()
    (project / "AGENTS.md").write_text(
        "".join(f"- Memory entry number {i} about some convention\n" for i in range(ENTRIES)),
        encoding="utf-8",
    )
    wave_10k = median(browser_open, project, ENTRIES + 1)
    wave_empty = median(browser_open, empty, 0)
    bare = median(bare_table)
    print(f"\nmemory browser, {ENTRIES:,} entries: {wave_10k * 1000:8.1f} ms (goal ≤ 150 ms)")
    print(f"memory browser, empty:          {wave_empty * 1000:8.1f} ms (goal ≤ 50 ms)")
    print(f"bare DataTable, {ENTRIES:,} rows:    {bare * 1000:8.1f} ms")
    print(f"ratio wave 10k / bare DataTable: {wave_10k / bare:8.2f}")
