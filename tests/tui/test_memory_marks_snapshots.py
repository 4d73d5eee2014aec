"""Snapshots of the memory browser's third-round marks (MM1, …). Review before updating."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import SIZE, BuildApp, write
from tests.tui.helpers import open_memory, select_entry
from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.catalog_marks import sides_of, with_changed_refs
from wave_tui.memory.conflicts import Conflict, save_conflicts

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


@pytest.mark.req("MM2")
@pytest.mark.req("MM4")
def test_memory_browser_conflict_mark_and_a_path_scoped_team_memory(
    snap_compare: Any, build_app: BuildApp, seeded_memory: WavePaths
) -> None:
    """The `conflict` badge and its preview note; the team group with a path-scoped memory."""
    team = seeded_memory.team_memory_dir
    write(
        team / "db.md",
        "---\nname: Migrations\npaths: migrations/**\n---\nNever edit old ones.\n",
        3,
    )
    agents = seeded_memory.project_agents_md
    agents.write_text(agents.read_text() + "- Edit old migrations in place when needed\n")
    entries = build_catalog(seeded_memory)
    sides = {s.id: s for s in sides_of(entries)}
    conflict = Conflict(
        sides["project:AGENTS.md#4"], sides["team:db.md"], "edit old migrations or never"
    )
    save_conflicts(seeded_memory.conflicts_file, [conflict])

    async def run_before(pilot: Pilot[None]) -> None:
        await open_memory(pilot)
        await select_entry(pilot, "team:db.md")

    assert snap_compare(build_app(), terminal_size=SIZE, run_before=run_before)
