"""Session files (seed §6 会话文件存储): compaction chains linked by
`parentSessionId`, the full thread across them, listing, and expiry cleanup."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from wave_tui.agent.compaction import make_compress_message
from wave_tui.agent.session_files import (
    cleanup_old_sessions,
    full_thread,
    list_sessions,
    parent_of,
    session_chain,
    start_child_session,
)
from wave_tui.agent.transcript import transcript_for
from wave_tui.config.paths import WavePaths
from wave_tui.llm.types import Message

# The requirements this module checks beyond its tests' own markers.
pytestmark = pytest.mark.req("S1", "S2")

DAY = 86_400


def make_paths(project: Path) -> WavePaths:
    return WavePaths.for_workdir(project)


def three_linked(paths: WavePaths) -> tuple[str, str, str, list[Message]]:
    """root -> child -> grandchild, each child keeping the last message of its parent."""
    root = transcript_for(paths, "root")
    first = [Message.user("hello"), Message(role="assistant", content="hi")]
    for m in first:
        root.append(m)
    child = start_child_session(paths, "root", [make_compress_message("S1", ""), first[1]])
    more = [Message.user("next"), Message(role="assistant", content="ok")]
    for m in more:
        child.append(m)
    grand = start_child_session(paths, child.session_id, [make_compress_message("S2", ""), more[1]])
    last = Message.user("latest")
    grand.append(last)
    return "root", child.session_id, grand.session_id, [*first, *more, last]


@pytest.mark.req("CP2")
def test_child_transcript_starts_with_the_compress_block_naming_its_parent(project: Path) -> None:
    """CP2: child transcript starts with the compress block naming its parent."""
    paths = make_paths(project)
    child = start_child_session(paths, "old", [make_compress_message("S", "")])
    first = child.load()[0]
    assert first.kind == "compress"
    assert first.meta == {"parentSessionId": "old"}
    assert parent_of(child) == "old"
    assert parent_of(transcript_for(paths, "old")) is None


def test_session_chain_and_full_thread_across_three_linked_transcripts(project: Path) -> None:
    paths = make_paths(project)
    root, child, grand, normal = three_linked(paths)
    assert session_chain(paths, grand) == [root, child, grand]
    assert session_chain(paths, root) == [root]
    thread = full_thread(paths, grand)
    assert [m.content for m in thread] == ["hello", "hi", "S1", "next", "ok", "S2", "latest"]
    assert [m for m in thread if m.kind == "normal"] == normal  # kept copies appear once


def test_session_chain_is_cycle_safe_and_stops_at_an_expired_parent(project: Path) -> None:
    paths = make_paths(project)
    a = transcript_for(paths, "a")
    b = transcript_for(paths, "b")
    a.append(make_compress_message("A", "").model_copy(update={"meta": {"parentSessionId": "b"}}))
    b.append(make_compress_message("B", "").model_copy(update={"meta": {"parentSessionId": "a"}}))
    assert session_chain(paths, "a") == ["b", "a"]
    orphan = start_child_session(paths, "gone", [make_compress_message("C", "")])
    assert session_chain(paths, orphan.session_id) == [orphan.session_id]


def test_list_sessions_reports_counts_parents_and_skips_subagents(project: Path) -> None:
    paths = make_paths(project)
    root, child, grand, _ = three_linked(paths)
    transcript_for(paths, "subagent-x").append(Message.user("sub"))
    infos = {i.id: i for i in list_sessions(paths)}
    assert set(infos) == {root, child, grand}
    assert infos[root].message_count == 2 and infos[root].parent_id is None
    assert infos[grand].message_count == 3 and infos[grand].parent_id == child
    assert infos[root].created <= infos[root].last_active + 1


# -- cleanup --------------------------------------------------------------------------------------
def _file(path: Path, age_days: float, now: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n")
    stamp = now - age_days * DAY
    os.utime(path, (stamp, stamp))
    return path


@pytest.mark.req("CP6")
def test_cleanup_deletes_old_jsonl_but_keeps_memory_and_non_empty_projects(project: Path) -> None:
    """CP6: cleanup deletes old jsonl but keeps memory and non empty projects."""
    paths = make_paths(project)
    now = time.time()
    projects = paths.projects_dir
    gone_dir = projects / "only-old"
    _file(gone_dir / "s1.jsonl", 40, now)
    _file(gone_dir / "subagent-1.jsonl", 40, now)
    with_memory = projects / "with-memory"
    _file(with_memory / "s2.jsonl", 40, now)
    old_memory = _file(with_memory / "memory" / "MEMORY.md", 400, now)
    old_memory_jsonl = _file(with_memory / "memory" / "notes.jsonl", 400, now)
    mixed = projects / "mixed"
    _file(mixed / "old.jsonl", 31, now)
    fresh = _file(mixed / "fresh.jsonl", 1, now)
    other = _file(mixed / "notes.txt", 400, now)

    report = cleanup_old_sessions(paths, 30, now)

    assert not gone_dir.exists()
    assert not (with_memory / "s2.jsonl").exists()
    assert old_memory.exists() and old_memory_jsonl.exists()
    assert not (mixed / "old.jsonl").exists()
    assert fresh.exists() and other.exists()
    assert sorted(p.name for p in report.deleted) == [
        "old.jsonl",
        "s1.jsonl",
        "s2.jsonl",
        "subagent-1.jsonl",
    ]
    assert report.removed_dirs == [gone_dir]


@pytest.mark.req("CP6")
def test_cp6_cleanup_removes_expired_subagent_transcripts_too(project: Path) -> None:
    """CP6: `<session-id>/subagents/*.jsonl` expire by their own age; emptied folders go, the
    session being resumed keeps its subagents, and `memory/` is never entered."""
    paths = make_paths(project)
    now = time.time()
    proj = paths.projects_dir / "p"
    fresh_main = _file(proj / "live.jsonl", 1, now)
    old_sub = _file(proj / "live" / "subagents" / "agent-a.jsonl", 40, now)
    fresh_sub = _file(proj / "live" / "subagents" / "agent-b.jsonl", 1, now)
    gone_main = _file(proj / "gone.jsonl", 40, now)
    gone_sub = _file(proj / "gone" / "subagents" / "agent-c.jsonl", 40, now)
    kept_main = _file(proj / "kept.jsonl", 40, now)
    kept_sub = _file(proj / "kept" / "subagents" / "agent-d.jsonl", 40, now)
    memory_sub = _file(proj / "memory" / "subagents" / "notes.jsonl", 400, now)
    other = _file(proj / "gone" / "notes.txt", 400, now)

    report = cleanup_old_sessions(paths, 30, now, keep=frozenset({kept_main}))

    assert not old_sub.exists() and not gone_main.exists() and not gone_sub.exists()
    assert fresh_main.exists() and fresh_sub.exists()
    assert kept_main.exists() and kept_sub.exists()
    assert memory_sub.exists() and other.exists()
    assert not (proj / "gone" / "subagents").exists() and (proj / "gone").is_dir()
    assert sorted(p.name for p in report.deleted) == [
        "agent-a.jsonl",
        "agent-c.jsonl",
        "gone.jsonl",
    ]
    assert report.errors == []


@pytest.mark.req("CP6")
def test_cp6_a_session_folder_left_empty_is_removed_with_its_project(project: Path) -> None:
    paths = make_paths(project)
    now = time.time()
    proj = paths.projects_dir / "old"
    _file(proj / "s.jsonl", 40, now)
    _file(proj / "s" / "subagents" / "a.jsonl", 40, now)

    report = cleanup_old_sessions(paths, 30, now)

    assert not proj.exists()
    assert report.removed_dirs == [proj / "s" / "subagents", proj / "s", proj]


def test_cleanup_period_zero_deletes_nothing(project: Path) -> None:
    paths = make_paths(project)
    now = time.time()
    old = _file(paths.projects_dir / "p" / "s.jsonl", 1000, now)
    report = cleanup_old_sessions(paths, 0, now)
    assert old.exists()
    assert report.deleted == []


def test_cleanup_without_projects_folder_is_silent_and_runs_in_a_thread(project: Path) -> None:
    paths = make_paths(project)
    reports = []
    worker = threading.Thread(
        target=lambda: reports.append(cleanup_old_sessions(paths, 30, time.time()))
    )
    worker.start()
    worker.join(5)
    assert reports and reports[0].deleted == [] and reports[0].errors == []
