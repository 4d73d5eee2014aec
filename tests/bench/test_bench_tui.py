"""TUI benchmarks (no timed asserts): first frame of `wave` vs a bare Textual app (an Input and a
Footer), and the memory browser with 10,000 entries vs a bare DataTable with the
same rows (the item 6 figures with their floor: `test_bench_memory_browser.py`).

`pytest tests/bench/test_bench_tui.py::test_report_tui_timings -m bench -s` prints the first-frame
medians, in process and imports excluded, then the imports before the first frame in a fresh
interpreter, each against the bare app in the same run; `--benchmark-enable` gives the tables.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from rich.console import RenderableType
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input

from tests.bench import instructions
from tests.bench.costs import Cost, alternate, clock, rounds, show, since
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.tui.app import WaveApp, make_app
from wave_tui.tui.widgets.row_list import RowList

ENTRIES = 10_000
RUNS = rounds(7)
# What `wave` imports before its first frame, and what the bare app needs.
WAVE_IMPORTS = "import wave_tui.tui.launch"
BARE_IMPORTS = "from textual.app import App; from textual.widgets import Footer, Input"


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Input(placeholder="Message")
        yield Footer()


class BareTable(App[None]):
    def __init__(self, rows: list[tuple[str, ...]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Title", "Type", "Scope", "Age", "")
        table.add_rows(self.rows)


def wave_app(project: Path) -> WaveApp:
    # A configured endpoint (nothing is requested before the first message): the common case.
    environ = {"WAVE_BASE_URL": "http://127.0.0.1:9/v1", "WAVE_MODEL": "m", "WAVE_LOCAL": "0"}
    service = AgentService(AgentOptions(workdir=project, environ=environ))
    app = make_app(service.store, service)
    app.animation_level = "none"
    return app


def first_frame(build: Callable[[], App[None]]) -> Cost:
    """From building the app to its first painted frame (as `bench/first_frame.py` stops)."""
    return start_up(build)[0]


def start_up(build: Callable[[], App[None]]) -> tuple[Cost, Cost]:
    """(to the first painted frame, to the app settled: the work it does after that frame, such
    as building the memory browser ahead of F2, done)."""

    async def run() -> tuple[Cost, Cost]:
        start = clock()
        app = build()
        painted: list[Cost] = []
        display = app._display

        def first(screen: Screen[Any], renderable: RenderableType | None) -> None:
            display(screen, renderable)
            if renderable is not None and not painted:
                painted.append(since(start))

        app._display = first  # type: ignore[method-assign]
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            settled = since(start)
        return painted[0], settled

    return asyncio.run(run())


def open_memory_browser(project: Path) -> float:
    async def run() -> float:
        app = wave_app(project)
        async with app.run_test(size=(100, 32)) as pilot:
            start = time.perf_counter()
            await pilot.press("f2")
            await app.workers.wait_for_complete()
            await pilot.pause()
            table = app.screen.query_one("#memory-table", RowList)
            assert table.row_count == ENTRIES + 1  # + the group row
            return time.perf_counter() - start

    return asyncio.run(run())


def bare_table(rows: list[tuple[str, ...]]) -> float:
    async def run() -> float:
        start = time.perf_counter()
        app = BareTable(rows)
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            return time.perf_counter() - start

    return asyncio.run(run())


@pytest.fixture
def big_project(project: Path) -> Path:
    lines = [f"- Memory entry number {i} about some convention\n" for i in range(ENTRIES)]
    (project / "AGENTS.md").write_text("".join(lines), encoding="utf-8")
    return project


@pytest.mark.bench
def test_bench_first_frame_wave(benchmark: BenchmarkFixture, project: Path) -> None:
    benchmark(first_frame, lambda: wave_app(project))


@pytest.mark.bench
def test_bench_first_frame_bare_app(benchmark: BenchmarkFixture) -> None:
    benchmark(first_frame, BareApp)


@pytest.mark.bench
def test_bench_memory_browser_10k(benchmark: BenchmarkFixture, big_project: Path) -> None:
    benchmark(open_memory_browser, big_project)


@pytest.mark.bench
def test_bench_bare_datatable_10k(benchmark: BenchmarkFixture) -> None:
    rows = [(f"Memory entry number {i}", "—", "project", "today", "") for i in range(ENTRIES)]
    benchmark(bare_table, rows)


def imports(statement: str) -> Cost:
    """A fresh interpreter that runs only `statement` (bytecode cached)."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = clock()
    subprocess.run([sys.executable, "-c", statement], check=True, env=environ)
    return since(start)


@pytest.mark.req("SP2")
def test_report_tui_timings(project: Path) -> None:
    """Prints wave's first frame, the bare app's and the ratio (`-s` to see them), in process and
    for the imports before it; nothing is asserted on time."""
    imports(WAVE_IMPORTS)  # bytecode written once, outside the figures
    settled: list[Cost] = []

    def wave_frame() -> Cost:
        frame, done = start_up(lambda: wave_app(project))
        settled.append(done)
        return frame

    figures = alternate(
        {
            "wave": wave_frame,
            "bare": lambda: first_frame(BareApp),
            "wave imports": lambda: imports(WAVE_IMPORTS),
            "bare imports": lambda: imports(BARE_IMPORTS),
        },
        RUNS,
    )
    print()
    show("first frame, in process: wave", figures["wave"], figures["bare"])
    show("  baseline: bare Input + Footer app", figures["bare"])
    show(
        "  wave settled (its after-frame work done)",
        Cost(median(c.wall for c in settled), median(c.cpu for c in settled)),
    )
    show("imports, fresh interpreter: wave", figures["wave imports"], figures["bare imports"])
    show("  baseline: textual.app, Input, Footer", figures["bare imports"])


FIRST_FRAME = Path(__file__).resolve().parents[2] / "bench" / "first_frame.py"
FIRST_FRAME_ENV = {"WAVE_BASE_URL": "http://127.0.0.1:9/v1", "WAVE_MODEL": "m", "WAVE_LOCAL": "0"}


def whole_first_frame(kind: str, project: Path) -> Cost:
    """`bench/first_frame.py KIND`: a fresh process from start to its first painted frame."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ.update(FIRST_FRAME_ENV)
    start = clock()
    subprocess.run(
        [sys.executable, str(FIRST_FRAME), kind, str(project)], check=True, env=environ, cwd=project
    )
    return since(start)


@pytest.mark.req("SP2")
def test_report_first_frame_whole_process(project: Path) -> None:
    """Start → first frame of a whole process: wave, the bare app (the floor),
    and the bare app after pydantic-settings built one settings class (the engine floor: the
    first frame shows the model and the permission mode, read through that engine)."""
    for kind in ("wave", "bare", "engine"):
        whole_first_frame(kind, project)  # bytecode written, page cache warm
    figures = alternate(
        {
            kind: (lambda k=kind: whole_first_frame(k, project))
            for kind in ("wave", "bare", "engine")
        },
        RUNS,
    )
    print()
    show("start → first frame, whole process: wave", figures["wave"], figures["bare"])
    show("  floor: bare Input + Footer app", figures["bare"])
    show("  wave against the engine floor", figures["wave"], figures["engine"])
    show("  engine floor: bare app + pydantic-settings", figures["engine"], figures["bare"])
    if instructions.ENABLED:
        commands = {k: [sys.executable, str(FIRST_FRAME), k, str(project)] for k in figures}
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        environ.update(FIRST_FRAME_ENV)
        print("\n".join(instructions.instruction_lines(commands, project, environ, "bare")))
