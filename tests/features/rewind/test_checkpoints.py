"""The checkpoint store and the rewind of files, on real files: content kept once per hash, a
torn index line (a crash mid-append) costing nothing, an interrupted rewind run again ending as
a whole one would, the per-session cap saying so once."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.agent.extensions import ToolCallInfo
from wave_tui.agent.transcript import transcript_for
from wave_tui.config.paths import WavePaths
from wave_tui.features.rewind.hook import CheckpointHook
from wave_tui.features.rewind.rewind import apply_code, plan_code
from wave_tui.features.rewind.store import CheckpointStore
from wave_tui.llm.types import Message


def session_with_prompts(paths: WavePaths, sid: str, *prompts: str) -> list[Message]:
    transcript = transcript_for(paths, sid)
    messages = [Message.user(p) for p in prompts]
    for message in messages:
        transcript.append(message)
    return messages


def hook_for(
    paths: WavePaths, sid: str, messages: list[Message], notes: list[str]
) -> CheckpointHook:
    return CheckpointHook(
        paths,
        session_id=lambda: sid,
        messages=lambda: messages,
        model=lambda: "m",
        notify=lambda kind, text: notes.append(text),
    )


async def agent_writes(hook: CheckpointHook, path: Path, content: str) -> None:
    """What the pipeline does around a Write: checkpoint, write, note the result."""
    await hook.before_run(ToolCallInfo.of("c", "Write", {"file_path": str(path)}, path.parent))
    path.write_text(content)
    from wave_tui.agent.extensions import ToolOutcome
    from wave_tui.tools.base import ToolResult

    await hook.after_tool(
        ToolOutcome(
            ToolCallInfo.of("c", "Write", {}, path.parent), ToolResult("ok", written_paths=[path])
        )
    )


@pytest.mark.req("RW1")
async def test_the_first_write_of_a_file_in_a_turn_keeps_its_prior_bytes_once_per_content(
    project: Path,
) -> None:
    paths = WavePaths.for_workdir(project)
    (turn,) = messages = session_with_prompts(paths, "s1", "go")
    hook = hook_for(paths, "s1", messages, [])
    a, b = project / "a.txt", project / "b.txt"
    a.write_text("same\n")
    b.write_text("same\n")
    await agent_writes(hook, a, "x")
    await agent_writes(hook, a, "y")  # the same turn: the checkpoint is before the first write
    await agent_writes(hook, b, "z")
    await agent_writes(hook, project / "new.txt", "n")
    store = CheckpointStore(paths.checkpoint_dir("s1"))
    befores = [r for r in store.records() if r.kind == "before"]
    assert [(r.path.name, r.turn) for r in befores] == [
        ("a.txt", turn.id),
        ("b.txt", turn.id),
        ("new.txt", turn.id),
    ]
    assert befores[0].blob == befores[1].blob and befores[2].blob is None
    blobs = [p for p in (paths.checkpoint_dir("s1") / "blobs").rglob("*") if p.is_file()]
    assert len(blobs) == 1  # one per content
    assert store.blob(befores[0].blob or "") == b"same\n"


@pytest.mark.req("RW1")
async def test_a_torn_index_line_loses_nothing_before_it_and_nothing_after(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    messages = session_with_prompts(paths, "s1", "go")
    hook = hook_for(paths, "s1", messages, [])
    a, b = project / "a.txt", project / "b.txt"
    a.write_text("a0")
    b.write_text("b0")
    await agent_writes(hook, a, "a1")
    index = paths.checkpoint_dir("s1") / "index.jsonl"
    with open(index, "ab") as fh:
        fh.write(b'{"kind": "before", "pa')  # kill -9 mid-append
    await agent_writes(hook, b, "b1")
    result = apply_code(paths, "s1", plan_code(paths, "s1", 1), lambda _p: False)
    assert (a.read_text(), b.read_text()) == ("a0", "b0")
    assert set(result.restored) == {a, b}


@pytest.mark.req("RW3")
async def test_a_rewind_interrupted_half_way_run_again_ends_as_a_whole_one(
    project: Path, tmp_path: Path
) -> None:
    paths = WavePaths.for_workdir(project)
    messages = session_with_prompts(paths, "s1", "one")
    hook = hook_for(paths, "s1", messages, [])
    files = [project / f"f{i}.txt" for i in range(4)]
    for i, path in enumerate(files[:3]):
        path.write_text(f"orig {i}")
    second = Message.user("two")
    transcript_for(paths, "s1").append(second)
    messages.append(second)
    for path in files:
        await agent_writes(hook, path, "agent")
    plan = plan_code(paths, "s1", 2)
    assert [p.action for p in plan] == ["restore", "restore", "restore", "remove"]
    apply_code(paths, "s1", plan[:2], lambda _p: False)  # the process died here
    again = plan_code(paths, "s1", 2)
    assert [p.action for p in again] == ["unchanged", "unchanged", "restore", "remove"]
    assert not any(p.changed_elsewhere for p in again)
    apply_code(paths, "s1", again, lambda _p: False)
    assert [p.read_text() for p in files[:3]] == ["orig 0", "orig 1", "orig 2"]
    assert not files[3].exists()
    assert all(p.action == "unchanged" for p in plan_code(paths, "s1", 2))


@pytest.mark.req("RW3")
async def test_a_file_changed_elsewhere_is_marked_and_overwritten_only_when_allowed(
    project: Path,
) -> None:
    paths = WavePaths.for_workdir(project)
    messages = session_with_prompts(paths, "s1", "one")
    hook = hook_for(paths, "s1", messages, [])
    a = project / "a.txt"
    a.write_text("orig")
    await agent_writes(hook, a, "agent")
    a.write_text("user's")
    (item,) = plan_code(paths, "s1", 1)
    assert item.changed_elsewhere
    asked: list[Path] = []
    result = apply_code(paths, "s1", [item], lambda p: asked.append(p) or False)
    assert asked == [a] and result.left_alone == (a,) and a.read_text() == "user's"
    apply_code(paths, "s1", [item], lambda p: True)
    assert a.read_text() == "orig"


@pytest.mark.req("RW1")
async def test_over_the_session_cap_edits_are_not_kept_and_the_user_is_told_once(
    project: Path,
) -> None:
    paths = WavePaths.for_workdir(project)
    messages = session_with_prompts(paths, "s1", "one")
    notes: list[str] = []
    hook = hook_for(paths, "s1", messages, notes)
    hook.store("s1").cap_bytes = 10
    big, other = project / "big.txt", project / "other.txt"
    big.write_text("x" * 100)
    other.write_text("y" * 100)
    await agent_writes(hook, big, "1")
    await agent_writes(hook, other, "2")
    assert len(notes) == 1 and "not checkpointed" in notes[0]
    result = apply_code(paths, "s1", plan_code(paths, "s1", 1), lambda _p: False)
    assert set(result.lost) == {big, other} and big.read_text() == "1"
