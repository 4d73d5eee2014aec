"""Issue 12 item 4: a memory write waiting on a lock held by another process never stalls the UI."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.tui.conftest import fixed_clock, server_env
from wave_tui.agent import events as ev
from wave_tui.config.fileio import lock_path_for
from wave_tui.config.paths import WavePaths
from wave_tui.session.facade import create_session
from wave_tui.session.types import AgentOptions
from wave_tui.tui.app import make_app
from wave_tui.tui.widgets.history_input import HistoryInput

# Holds the lock until told to let go on stdin (or 20 s at most), so the test never depends on
# how fast this machine is.
HOLDER = """
import sys
from filelock import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
print("locked", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
"""


@pytest.mark.req("X2")
async def test_x2_app_answers_keys_while_another_process_holds_the_memory_lock(
    model_server: ModelServer, project: Path, paths: WavePaths
) -> None:
    target = paths.memory_dir / "from_main.md"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "---\nname: x\n---\nbody\n"}),
        text("saved"),
    )
    session = create_session(
        AgentOptions(workdir=project, environ=server_env(model_server), clock=fixed_clock),
        clock=fixed_clock,
    )
    app = make_app(None, session)
    app.animation_level = "none"
    lock_path_for(target).parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_path_for(target))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert await asyncio.to_thread(holder.stdout.readline) == "locked\n"
        started: list[ev.ToolStarted] = []
        session.subscribe(lambda e: started.append(e) if isinstance(e, ev.ToolStarted) else None)
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.press(*"remember this", "enter")
            while not started:  # the Write is now waiting for the lock
                await pilot.pause(0.02)
            await pilot.press(*"typed while locked")
            prompt = app.chat_screen.query_one("#prompt", HistoryInput)
            assert prompt.value == "typed while locked"
            await pilot.press("f2")
            await pilot.pause()
            assert app.current_mode == "memory"
            assert session.status().busy and not target.exists()  # still waiting on the lock
            holder.stdin.write("go\n")
            holder.stdin.flush()
            await session.wait_idle()
            await pilot.pause()
            assert target.read_text(encoding="utf-8").endswith("body\n")
    finally:
        if holder.stdin is not None and not holder.stdin.closed:
            holder.stdin.close()
        holder.wait(timeout=20)
