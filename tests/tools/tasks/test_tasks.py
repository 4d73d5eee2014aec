"""Task tools and their store: real files under the temporary HOME, real processes sharing a list."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.tools.base import ToolContext
from wave_tui.tools.tasks.store import TaskStore, default_list_id
from wave_tui.tools.tasks.tools import task_tools


def _store(project: Path, list_id: str = "s1") -> TaskStore:
    return TaskStore(WavePaths.for_workdir(project), list_id)


@pytest.mark.req("TK1")
async def test_tk1_create_get_update_list_round_trip(project: Path, ctx: ToolContext) -> None:
    store = _store(project)
    tools = {t.name: t for t in task_tools(store)}
    first = await tools["TaskCreate"].run(
        {"subject": "Write tests", "description": "cover the store", "activeForm": "Writing tests"},
        ctx,
    )
    second = await tools["TaskCreate"].run({"subject": "Ship", "description": ""}, ctx)
    assert not first.is_error and "#1" in first.content
    assert "#2" in second.content
    upd = await tools["TaskUpdate"].run(
        {"taskId": "2", "addBlockedBy": ["1"], "status": "in_progress"}, ctx
    )
    assert not upd.is_error, upd.content
    got = await tools["TaskGet"].run({"taskId": "1"}, ctx)
    assert "Blocks: #2" in got.content and "Active form: Writing tests" in got.content
    listed = await tools["TaskList"].run({}, ctx)
    assert listed.content.splitlines() == [
        "#1 [pending] Write tests",
        "#2 [in_progress] Ship (blocked by #1)",
    ]
    await tools["TaskUpdate"].run({"taskId": 1, "status": "deleted"}, ctx)
    listed = await tools["TaskList"].run({}, ctx)
    assert listed.content.startswith("#2 ")


@pytest.mark.req("TK1")
async def test_tk1_bad_arguments_are_tool_errors(project: Path, ctx: ToolContext) -> None:
    tools = {t.name: t for t in task_tools(_store(project))}
    assert (await tools["TaskGet"].run({"taskId": "9"}, ctx)).content == "Task #9 not found."
    await tools["TaskCreate"].run({"subject": "a", "description": ""}, ctx)
    bad = await tools["TaskUpdate"].run({"taskId": "1", "status": "done"}, ctx)
    assert bad.is_error and "status must be one of" in bad.content
    missing = await tools["TaskUpdate"].run({"taskId": "1", "addBlocks": ["7"]}, ctx)
    assert missing.is_error and "#7" in missing.content
    empty = await tools["TaskCreate"].run({"subject": "  ", "description": ""}, ctx)
    assert empty.is_error


@pytest.mark.req("TK2")
async def test_tk2_stored_under_wave_tasks_list_id(
    project: Path, isolated_home: Path, ctx: ToolContext
) -> None:
    store = _store(project, "my-list")
    seen: list[int] = []
    store.subscribe(lambda tasks: seen.append(len(tasks)))
    await store.create("one")
    await store.create("two")
    data = json.loads((isolated_home / ".wave/tasks/my-list/tasks.json").read_text())
    assert [t["subject"] for t in data["tasks"]] == ["one", "two"]
    assert seen == [1, 2]  # the panel's change signal


@pytest.mark.req("TK2")
def test_tk2_list_id_from_environment() -> None:
    assert default_list_id("sess", {"WAVE_TASK_LIST_ID": "shared"}) == "shared"
    assert default_list_id("sess", {}) == "sess"


_WORKER = """
import asyncio, sys
from pathlib import Path
from wave_tui.config.paths import WavePaths
from wave_tui.tools.tasks.store import TaskStore
async def main():
    store = TaskStore(WavePaths.for_workdir(Path(sys.argv[1])), "shared")
    for i in range(15):
        await store.create(f"{sys.argv[2]}-{i}")
asyncio.run(main())
"""


@pytest.mark.req("TK2")
def test_tk2_two_processes_share_one_list_without_losing_a_task(project: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER, str(project), name]) for name in ("a", "b")
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    tasks = _store(project, "shared").read_now()
    assert len(tasks) == 30
    assert len({t.id for t in tasks}) == 30


@pytest.mark.req("TK2")
def test_tk2_damaged_file_is_rebuilt(project: Path, isolated_home: Path) -> None:
    store = _store(project, "x")
    store.file.parent.mkdir(parents=True)
    store.file.write_text("{not json")
    assert store.read_now() == []


@pytest.mark.req("TK1")
async def test_tk1_task_ids_may_be_numbers_and_a_single_id_stands_for_a_list(
    project: Path, ctx: ToolContext
) -> None:
    tools = {t.name: t for t in task_tools(_store(project))}
    await tools["TaskCreate"].run({"subject": "a"}, ctx)
    await tools["TaskCreate"].run({"subject": "b", "description": "", "activeForm": None}, ctx)
    upd = await tools["TaskUpdate"].run({"taskId": 2, "addBlockedBy": 1}, ctx)
    assert not upd.is_error, upd.content
    assert upd.content == "Updated #2 [pending] b (blocked by #1)"
    got = await tools["TaskGet"].run({"taskId": " 1 "}, ctx)
    assert got.content.splitlines() == ["#1 [pending] a", "Blocks: #2"]
    bad = await tools["TaskUpdate"].run({"taskId": "1", "addBlocks": [True]}, ctx)
    assert bad.content == "Parameter `addBlocks` must be a list of task ids."
    wrong = await tools["TaskGet"].run({"taskId": 1.5}, ctx)
    assert wrong.content == "Parameter `taskId` must be a string, got float."
    missing = await tools["TaskGet"].run({}, ctx)
    assert missing.content == "Missing required parameter `taskId`."


@pytest.mark.req("TK2")
async def test_tk2_a_deleted_task_no_longer_blocks_anything(
    project: Path, ctx: ToolContext
) -> None:
    """TK2: deleting #1 unlinks it: #2 and #3 are no longer "blocked by #1", and no task can be
    made to wait for it again."""
    store = _store(project)
    tools = {t.name: t for t in task_tools(store)}
    for subject in ("first", "second", "third"):
        await tools["TaskCreate"].run({"subject": subject, "description": ""}, ctx)
    await tools["TaskUpdate"].run({"taskId": "1", "addBlocks": ["2", "3"]}, ctx)
    await tools["TaskUpdate"].run({"taskId": "3", "addBlockedBy": ["2"]}, ctx)
    deleted = await tools["TaskUpdate"].run({"taskId": "1", "status": "deleted"}, ctx)
    assert not deleted.is_error, deleted.content
    listed = await tools["TaskList"].run({}, ctx)
    assert listed.content.splitlines() == [
        "#2 [pending] second",
        "#3 [pending] third (blocked by #2)",
    ]
    got = await tools["TaskGet"].run({"taskId": "2"}, ctx)
    assert got.content.splitlines() == ["#2 [pending] second", "Blocks: #3"]
    on_disk = json.loads(store.file.read_text(encoding="utf-8"))["tasks"]
    assert [(t["id"], t["blocks"], t["blockedBy"]) for t in on_disk] == [
        ("1", [], []),
        ("2", ["3"], []),
        ("3", [], ["2"]),
    ]
    again = await tools["TaskUpdate"].run({"taskId": "2", "addBlockedBy": ["1"]}, ctx)
    assert again.is_error and again.content == "Task #1 not found."


@pytest.mark.req("TK2")
def test_tk2_a_list_that_still_links_a_deleted_task_reads_without_the_link(project: Path) -> None:
    """TK2: a file written before deletions unlinked (or edited by hand) shows no dead link."""
    store = _store(project)
    store.file.parent.mkdir(parents=True)
    store.file.write_text(
        json.dumps(
            {
                "nextId": 4,
                "tasks": [
                    {"id": "1", "subject": "gone", "status": "deleted", "blocks": ["2"]},
                    {"id": "2", "subject": "next", "blockedBy": ["1", "9"], "blocks": ["1"]},
                ],
            }
        ),
        encoding="utf-8",
    )
    (task,) = store.read_now()
    assert (task.id, task.blocked_by, task.blocks) == ("2", (), ())
