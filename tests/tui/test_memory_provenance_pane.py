"""The memory browser's detail pane says who wrote the entry shown (MR5)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from tests.tui.conftest import BuildApp
from tests.tui.helpers import open_memory, select_entry, wait_until
from wave_tui.config.paths import WavePaths
from wave_tui.memory.provenance import record_writes

pytestmark = [pytest.mark.req("MR5"), pytest.mark.usefixtures("frozen_time")]


async def test_the_pane_names_the_fork_run_and_session(
    build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    topic = next(seeded_memory.memory_dir.glob("*.md"))
    if topic.name == "MEMORY.md":
        topic = next(p for p in seeded_memory.memory_dir.glob("*.md") if p.name != "MEMORY.md")
    record_writes(seeded_memory.project_dir, [topic], "fork", run="run-42", session="session-7")
    app = build_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_memory(pilot)
        await select_entry(pilot, f"auto:{topic.name}")

        def shown() -> str:
            pane = app.screen.query("#preview-provenance")
            return str(pane.first(Static).content) if pane else ""

        await wait_until(pilot, lambda: "written by fork" in shown())
        assert "written by fork (run run-42) in session session-7" in shown()
        assert "never loaded" in shown()
