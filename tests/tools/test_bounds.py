"""X14 (tool parts): Read refuses non-regular files without blocking; auto-approved read-only
Bash output is capped so `cat /dev/zero` cannot fill the temp folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from wave_tui.permissions.policy import READ_ONLY_OUTPUT_LIMIT_BYTES, PermissionPolicy
from wave_tui.tools.base import ToolContext
from wave_tui.tools.bash import BashTool
from wave_tui.tools.read import ReadTool


@pytest.mark.req("X14")
async def test_x14_read_of_a_fifo_is_refused_and_does_not_block(ctx: ToolContext) -> None:
    fifo = ctx.workdir / "pipe"
    os.mkfifo(fifo)  # nobody writes: an open that blocks would hang the test forever
    result = await ReadTool().run({"file_path": str(fifo)}, ctx)
    assert result.is_error
    assert "not a regular file" in result.content


@pytest.mark.req("X14")
async def test_x14_read_of_a_device_is_refused(ctx: ToolContext) -> None:
    result = await ReadTool().run({"file_path": "/dev/zero"}, ctx)
    assert result.is_error
    assert "not a regular file" in result.content


@pytest.mark.req("X14")
async def test_x14_auto_approved_cat_dev_zero_is_bounded(ctx: ToolContext) -> None:
    decision = PermissionPolicy(ctx.workdir).decide("Bash", {"command": "cat /dev/zero"})
    assert decision.behavior == "allow"  # read-only by the classifier: runs without asking
    limit = decision.profile.output_limit_bytes
    assert limit == READ_ONLY_OUTPUT_LIMIT_BYTES
    ctx.output_limit_bytes = limit
    tmp = Path(tempfile.gettempdir())
    result = await BashTool().run({"command": "cat /dev/zero"}, ctx)
    assert result.is_error
    assert f"{limit}-byte limit" in result.content
    # The output file is gone and never grew past the cap: nothing left behind in /tmp either.
    leftovers = [p for p in tmp.glob("wave-tui-bash-*/*") if p.stat().st_size > limit]
    assert leftovers == []


@pytest.mark.req("X14")
async def test_x14_the_cap_applies_only_to_auto_approved_runs(ctx: ToolContext) -> None:
    """An approved build may write big files: without the profile there is no cap."""
    assert READ_ONLY_OUTPUT_LIMIT_BYTES < 5_000_000
    result = await BashTool().run({"command": "head -c 5000000 /dev/zero; echo end"}, ctx)
    assert not result.is_error
    assert result.content.endswith("end")
