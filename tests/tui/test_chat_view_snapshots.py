"""Snapshots of what the chat shows for commands and tools: a `!cmd` as a command block (the
command, its output verbatim, a non-zero exit code) and an Edit as a coloured diff."""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import SIZE, BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.config.paths import WavePaths

pytestmark = pytest.mark.usefixtures("frozen_time")


def test_bang_command_block(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer
) -> None:
    """`!cmd` after it ended: `$ command`, its output as printed (no fences, no bubble), and
    the exit code because it is not 0."""

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"!printf '# not a heading\\n**not bold**\\n'; exit 3", "enter")
        await settle(pilot)

    assert snap_compare(
        build_app(server_env(model_server)), terminal_size=SIZE, run_before=run_before
    )


def test_edit_shows_a_coloured_diff(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer, paths: WavePaths
) -> None:
    """An Edit's block: the summary, then the change as removed and added lines, open."""
    target = paths.project_root / "app.py"
    target.write_text("def total(items):\n    return sum(items)\n", encoding="utf-8")
    paths.user_settings.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings.write_text(
        json.dumps({"permissions": {"defaultMode": "acceptEdits"}}), encoding="utf-8"
    )
    model_server.enqueue(
        tool_call("Read", {"file_path": str(target)}),
        tool_call(
            "Edit",
            {
                "file_path": str(target),
                "old_string": "    return sum(items)",
                "new_string": "    # skip missing values\n    return sum(i for i in items if i)",
            },
        ),
        text("Done."),
    )

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"skip missing values", "enter")
        await settle(pilot)

    assert snap_compare(
        build_app(server_env(model_server)), terminal_size=SIZE, run_before=run_before
    )
