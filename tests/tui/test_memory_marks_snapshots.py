"""Snapshots of the memory browser's third-round marks (MM1, …). Review before updating."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import SIZE, BuildApp, write
from tests.tui.helpers import open_memory, select_entry
from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.catalog_marks import with_changed_refs

pytestmark = pytest.mark.usefixtures("frozen_time")


@pytest.mark.req("MM1")
def test_memory_preview_of_a_changed_citation(
    snap_compare: Any, build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """The list badge `changed` and the preview's `citation changed` with old and new text."""
    code = write(seeded_memory.project_root / "src" / "limits.py", "MAX_RETRIES = 3\n", 3)
    agents = seeded_memory.project_agents_md
    agents.write_text(agents.read_text() + "- Retries are capped at src/limits.py:1\n")
    with_changed_refs(build_catalog(seeded_memory), seeded_memory)  # pinned as written
    code.write_text("MAX_RETRIES = 8\n")

    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)
        await select_entry(pilot, "project:AGENTS.md#4")

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)
