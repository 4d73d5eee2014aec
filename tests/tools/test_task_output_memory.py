"""TaskOutput and BashOutput of a huge log return its ends in bounded memory (SP7): a real
background command writes 200 MB, and a separate Python process reads it through both tools
while its peak resident size is watched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

LOG_BYTES = 200_000_000
# What reading the ends may add to the reader's peak: far below the log (or its decoded text).
MAX_GROWTH_BYTES = 40_000_000

READER = r"""
import asyncio, json, resource, sys
from pathlib import Path
from wave_tui.files.read_state import ReadState
from wave_tui.tools.background import BackgroundManager, BashOutputTool
from wave_tui.tools.base import ToolContext
from wave_tui.tools.task_output import TaskOutputTool

async def main() -> None:
    work = Path(sys.argv[1])
    manager = BackgroundManager(work / "background")
    command = f"yes 'a line of a long build log' | head -c {sys.argv[2]}; echo; echo THE-END"
    task = await manager.start(command, work, {"PATH": "/usr/bin:/bin"}, "log")
    task = await manager.wait(task.id)
    ctx = ToolContext(workdir=work, read_state=ReadState())
    tools = {t.name: t for t in (TaskOutputTool(manager), BashOutputTool(manager))}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    task_out = await tools["TaskOutput"].run({"task_id": task.id}, ctx)
    bash_out = await tools["BashOutput"].run({"task_id": task.id}, ctx)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    await manager.aclose()
    print(json.dumps({
        "log": task.output_file.stat().st_size, "growth": after - before,
        "task_output": task_out.content, "bash_output": bash_out.content,
    }))

asyncio.run(main())
"""


@pytest.mark.req("SP7")
def test_sp7_output_of_a_200_mb_log_is_its_ends_in_bounded_memory(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", READER, str(tmp_path), str(LOG_BYTES)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    got = json.loads(proc.stdout)
    assert got["log"] > LOG_BYTES
    assert got["growth"] < MAX_GROWTH_BYTES, f"peak grew by {got['growth']:,} bytes"
    for content in (got["task_output"], got["bash_output"]):
        assert content.rstrip().endswith("\nTHE-END")
        assert "a line of a long build log\n" in content
        assert "of output truncated" in content
        assert len(content) < 31_000
