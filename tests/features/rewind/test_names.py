"""Session names survive a compaction (read down the chain) and a fork (the copy keeps it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.agent.session_files import start_child_session
from wave_tui.agent.transcript import new_session_id, transcript_for
from wave_tui.config.paths import WavePaths
from wave_tui.features.rewind.catalog import fork_session
from wave_tui.features.rewind.names import NAME_MAX, session_name, set_session_name
from wave_tui.llm.types import Message

pytestmark = pytest.mark.req("FH11")


def started(paths: WavePaths) -> str:
    sid = new_session_id()
    transcript_for(paths, sid).append(Message.user("hello"))
    return sid


def test_a_name_given_before_a_compaction_names_the_session_after_it(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    parent = started(paths)
    set_session_name(paths, parent, "Before")
    compress = Message(role="user", content="summary", kind="compress")
    child = start_child_session(paths, parent, [compress]).session_id
    assert session_name(paths, child) == "Before"
    set_session_name(paths, child, "After")  # the newest name wins, the parent keeps its own
    assert (session_name(paths, child), session_name(paths, parent)) == ("After", "Before")


def test_a_fork_keeps_the_name_and_a_long_name_is_cut(project: Path) -> None:
    paths = WavePaths.for_workdir(project)
    sid = started(paths)
    assert set_session_name(paths, sid, "x" * (NAME_MAX + 20)) == "x" * NAME_MAX
    assert session_name(paths, fork_session(paths, sid)) == "x" * NAME_MAX
