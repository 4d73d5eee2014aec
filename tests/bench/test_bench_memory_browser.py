"""The memory browser at scale, each figure next to its floor from the same run:

- 10,000 entries, F2 to the painted browser holding every row, once the app's start-up work is
  done (it reads the catalog once, off the loop, after the first frame), against the floor: the
  memory load itself (reading and parsing the entries, then the stale-reference check), timed
  through the same session in the same process; and cold, without that read after start-up;
- the same browser shown again (F2, F1, F2): the session keeps the catalog, so only files whose
  stat changed are read again — the warm figure next to the cold one above;
- the browser opened empty, against a bare Textual app switching to a new mode screen with the
  same kind of widgets (an Input, a list, a Footer);
- a bare DataTable given the 10,000 rows, for scale.

`pytest tests/bench/test_bench_memory_browser.py -m bench -s` prints the medians and ratios (no
timed asserts; goals: ≤ 150 ms at 10k, ≤ 50 ms empty), wall and CPU time. Each measure starts
from a collected heap: the garbage of the apps measured before it (five apps per round in one
process) is not billed to it.
"""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from tests.bench.costs import Cost, alternate, clock, rounds, show, since
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.session.facade import AgentSession
from wave_tui.tui.app import WaveApp, make_app
from wave_tui.tui.widgets.row_list import RowList

ENTRIES = 10_000
RUNS = rounds(5)
ROWS = [(f"Memory entry number {i}", "—", "project", "today", "") for i in range(ENTRIES)]
ENVIRON = {"WAVE_BASE_URL": "http://127.0.0.1:9/v1", "WAVE_MODEL": "m", "WAVE_LOCAL": "0"}


def wave_app(project: Path) -> WaveApp:
    service = AgentService(AgentOptions(workdir=project, environ=ENVIRON))
    app = make_app(service.store, service)
    app.animation_level = "none"
    return app


def collected_clock() -> Cost:
    gc.collect()
    return clock()


def browser_open(
    project: Path, expected_rows: int, *, again: bool = False, cold: bool = False
) -> Cost:
    """Seconds from F2 to the painted browser holding every row, once the app's start-up work
    is done (the catalog read after the first frame included); `again`: from the second F2,
    after the browser was shown once and left for the chat; `cold`: without that read."""

    async def run() -> Cost:
        app = wave_app(project)
        if cold:
            app._warm_memory_catalog = lambda: None  # type: ignore[method-assign]
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            if again:
                await pilot.press("f2")
                await app.workers.wait_for_complete()
                await pilot.press("f1")
                await pilot.pause()
            start = collected_clock()
            await pilot.press("f2")
            await app.workers.wait_for_complete()
            await pilot.pause()
            elapsed = since(start)
            assert app.screen.query_one("#memory-table", RowList).row_count == expected_rows
            return elapsed

    return asyncio.run(run())


def memory_load(project: Path) -> Cost:
    """The floor: the browser's two loads (the catalog, then the reference check), nothing shown."""

    async def run() -> Cost:
        service = AgentService(AgentOptions(workdir=project, environ=ENVIRON))
        session = AgentSession(service, store=service.store)
        start = collected_clock()
        entries = await session.memory.entries()
        await session.memory.with_missing_refs(entries)
        elapsed = since(start)
        assert len(entries) == ENTRIES
        return elapsed

    return asyncio.run(run())


class BareBrowser(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter")
        yield DataTable(cursor_type="row")
        yield Static("0 entries")
        yield Footer()


class BareModes(App[None]):
    MODES = {"chat": Screen, "memory": BareBrowser}
    DEFAULT_MODE = "chat"
    BINDINGS = [("f2", "switch_mode('memory')", "Memory")]


def bare_mode_switch() -> Cost:
    """Seconds from F2 to a bare app's new mode screen, painted (the empty browser's baseline)."""

    async def run() -> Cost:
        app = BareModes()
        app.animation_level = "none"
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            start = collected_clock()
            await pilot.press("f2")
            await pilot.pause()
            return since(start)

    return asyncio.run(run())


class BareTable(App[None]):
    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Title", "Type", "Scope", "Age", "")
        table.add_rows(ROWS)


def bare_table() -> Cost:
    async def run() -> Cost:
        app = BareTable()
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            start = collected_clock()
            # The same measure as the browser's: from a running app to the painted rows.
            table = app.query_one(DataTable)
            table.clear()
            table.add_rows(ROWS)
            await pilot.pause()
            await pilot.pause()
            return since(start)

    return asyncio.run(run())


@pytest.mark.bench
@pytest.mark.req("SP4")
def test_bench_memory_browser_10k_and_empty_vs_floor(project: Path, tmp_path: Path) -> None:
    """Prints the figures, floors and ratios; asserts only that every row is
    there."""
    empty = tmp_path / "empty"
    empty.mkdir()
    agents_md = project / "AGENTS.md"
    agents_md.write_text(
        "".join(f"- Memory entry number {i} about some convention\n" for i in range(ENTRIES)),
        encoding="utf-8",
    )
    # A file changed in the last two seconds is read again (it may change again within its
    # timestamp's granularity): the warm figure is of a file that has settled, as memory has.
    settled = agents_md.stat().st_ctime_ns + 2_100_000_000
    time.sleep(max(0.0, (settled - time.time_ns()) / 1e9))
    figures = alternate(
        {
            "wave 10k": lambda: browser_open(project, ENTRIES + 1),
            "wave 10k cold": lambda: browser_open(project, ENTRIES + 1, cold=True),
            "wave 10k again": lambda: browser_open(project, ENTRIES + 1, again=True),
            "floor": lambda: memory_load(project),
            "wave empty": lambda: browser_open(empty, 0),
            "bare mode switch": bare_mode_switch,
            "bare table": bare_table,
        },
        RUNS,
    )
    floor, baseline = figures["floor"], figures["bare mode switch"]
    print()
    show(f"memory browser, {ENTRIES:,} entries, every row painted", figures["wave 10k"], floor)
    show("  cold (no catalog read after start-up)", figures["wave 10k cold"], floor)
    show("  shown again (F2, F1, F2): catalog kept", figures["wave 10k again"], floor)
    show("  floor: the memory load alone (same run)", floor)
    show(f"  bare DataTable given the {ENTRIES:,} rows", figures["bare table"])
    show("memory browser, empty, painted", figures["wave empty"], baseline)
    show("  baseline: bare app, new mode screen", baseline)
