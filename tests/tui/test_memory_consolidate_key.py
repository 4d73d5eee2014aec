"""The memory browser's `c`: one consolidation pass as a run, its diff shown, `r` reverts (MM5)."""

from __future__ import annotations

import os
import time

import pytest

from tests.tui.conftest import BuildApp
from tests.tui.helpers import open_memory, wait_until
from wave_tui.config.paths import WavePaths
from wave_tui.tui.screens.confirm_action import ConfirmAction
from wave_tui.tui.screens.memory_runs import RunsScreen

OLD = "---\nname: build\ntype: project\n---\nBuild the project with make dist before release.\n"
NEW = "---\nname: build2\ntype: project\n---\nBuild the project with make dist before release!\n"


@pytest.mark.req("MM5")
async def test_c_asks_then_consolidates_shows_the_run_and_r_reverts_it(
    build_app: BuildApp, paths: WavePaths
) -> None:
    memory = paths.memory_dir
    memory.mkdir(parents=True)
    (memory / "build.md").write_text(OLD)
    past = time.time() - 3 * 86_400
    os.utime(memory / "build.md", (past, past))
    (memory / "build2.md").write_text(NEW)
    app = build_app()  # no model configured: the merge keeps the newer file's text
    async with app.run_test(size=(100, 32)) as pilot:
        await open_memory(pilot)
        app.screen.query_one("#memory-table").focus()
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmAction))
        assert isinstance(app.screen, ConfirmAction)  # asked first, with what would change
        assert "build.md: repeats build2.md; merged into it" in app.screen.detail
        assert (memory / "build.md").exists()
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)
        assert not (memory / "build.md").exists()
        diff = str(app.screen.query_one("#runs-diff").content)  # type: ignore[attr-defined]
        assert "-Build the project with make dist before release." in diff
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        await app.workers.wait_for_complete()
    assert (memory / "build.md").read_text() == OLD
    assert (memory / "build2.md").read_text() == NEW
