"""Background Bash: real processes in their own groups, output files, stop and exit (BG1–BG4)."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from tests.processes import alive as _alive
from wave_tui.config.paths import WavePaths
from wave_tui.features.tasks.background_notices import NOTIFICATION_HEADER, BackgroundNotifier
from wave_tui.tools.background import BackgroundManager, BashOutputTool, TaskStopTool
from wave_tui.tools.base import ToolContext
from wave_tui.tools.bash import BashTool


def _manager(project: Path) -> BackgroundManager:
    return BackgroundManager(WavePaths.for_workdir(project).background_dir)


def _task_id(content: str) -> str:
    match = re.search(r"task id (b[0-9a-f]{8})", content)
    assert match, content
    return match.group(1)


@pytest.mark.req("BG1")
async def test_bg1_background_bash_returns_task_id_and_writes_output_file(
    project: Path, ctx: ToolContext, isolated_home: Path
) -> None:
    manager = _manager(project)
    bash = BashTool(manager)
    result = await bash.run({"command": "echo hello-bg; exit 3", "run_in_background": True}, ctx)
    assert not result.is_error
    task_id = _task_id(result.content)
    task = await manager.wait(task_id)
    assert task.status == "failed" and task.exit_code == 3
    assert task.output_file.parent == isolated_home / ".wave" / "background"
    assert task.output_file.read_text() == "hello-bg\n"
    bash_output = BashOutputTool(manager)
    out = await bash_output.run({"task_id": task_id}, ctx)
    assert "hello-bg" in out.content and "exit code 3" in out.content
    again = await bash_output.run({"task_id": task_id}, ctx)
    assert "(no new output)" in again.content
    await manager.aclose()


@pytest.mark.req("BG2")
async def test_bg2_taskstop_kills_the_whole_group_and_is_not_notified(
    project: Path, ctx: ToolContext
) -> None:
    manager = _manager(project)
    notifier = BackgroundNotifier(manager)
    pidfile = ctx.workdir / "child.pid"
    task = await manager.start(
        f"sleep 300 & echo $! > {pidfile}; wait", ctx.workdir, dict(os.environ), "server"
    )
    while not pidfile.exists() or not pidfile.read_text().strip():
        await asyncio.sleep(0.01)
    child = int(pidfile.read_text())
    assert _alive(task.pid) and _alive(child)
    stop = TaskStopTool(manager)
    result = await stop.run({"task_id": task.id}, ctx)
    assert not result.is_error, result.content
    assert not _alive(task.pid) and not _alive(child)
    assert manager.get(task.id).status == "killed"  # type: ignore[union-attr]
    assert notifier.before_request() == []
    again = await stop.run({"task_id": task.id}, ctx)
    assert again.is_error and "not running" in again.content
    await manager.aclose()


@pytest.mark.req("BG3")
async def test_bg3_finished_tasks_batched_into_one_persisted_meta_message(
    project: Path, ctx: ToolContext
) -> None:
    manager = _manager(project)
    aborting = [True]
    notifier = BackgroundNotifier(manager, lambda: aborting[0])
    env = dict(os.environ)
    first = await manager.start("echo one", ctx.workdir, env, "first")
    second = await manager.start("echo two", ctx.workdir, env, "second")
    await manager.wait(first.id)
    await manager.wait(second.id)
    assert notifier.before_request() == []  # never mid-abort: kept for the next request
    notifier.on_messages_restored([])  # /clear keeps them too
    aborting[0] = False
    (message,) = notifier.before_request()
    assert message.is_meta and message.role == "user"
    assert message.content.startswith(f"{NOTIFICATION_HEADER}\n<task-notification>")
    assert message.content.count("<task-notification>") == 2
    assert f"<task-id>{first.id}</task-id>" in message.content
    assert "<status>completed</status>" in message.content
    assert f"<output-file>{first.output_file}</output-file>" in message.content
    assert notifier.before_request() == []
    await notifier.aclose()


@pytest.mark.req("BG4")
async def test_bg4_closing_the_session_ends_every_group(project: Path, ctx: ToolContext) -> None:
    manager = _manager(project)
    pidfile = ctx.workdir / "grandchild.pid"
    running = await manager.start("sleep 300", ctx.workdir, dict(os.environ), "a")
    # A finished leader that left a member of its group behind.
    done = await manager.start(
        f"(sleep 300 & echo $! > {pidfile})", ctx.workdir, dict(os.environ), "b"
    )
    await manager.wait(done.id)
    stray = int(pidfile.read_text())
    assert _alive(running.pid) and _alive(stray)
    await manager.aclose()
    assert not _alive(running.pid) and not _alive(stray)
    assert manager.take_completions() == [manager.get(done.id)]
    refused = await BashTool(manager).run({"command": "true", "run_in_background": True}, ctx)
    assert refused.is_error and "closing" in refused.content
