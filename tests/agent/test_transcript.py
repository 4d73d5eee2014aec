"""Transcript files: a torn last line never swallows a later message (X7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.agent.transcript import Transcript
from wave_tui.llm.types import Message


def _tear(path: Path, message: Message) -> bytes:
    """Append the first half of `message`'s line, as a kill -9 mid-write leaves it."""
    line = message.to_json_line().encode("utf-8")
    fragment = line[: len(line) // 2]
    with open(path, "ab") as fh:
        fh.write(fragment)
    return fragment


@pytest.mark.req("X7")
def test_x7_message_after_a_torn_line_loads(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    before = Transcript(path)
    before.append(Message.user("first"))
    fragment = _tear(path, Message(role="assistant", content="x" * 4000))

    after_restart = Transcript(path)
    after_restart.append(Message.user("after the crash"))
    after_restart.append(Message(role="assistant", content="answer"))
    warnings: list[str] = []
    loaded = Transcript(path).load(warn=warnings.append)

    assert [m.content for m in loaded] == ["first", "after the crash", "answer"]
    assert warnings == []
    assert after_restart.corrupt_path.read_bytes() == fragment + b"\n"


@pytest.mark.req("X7")
def test_x7_a_file_that_is_only_a_fragment(tmp_path: Path) -> None:
    path = tmp_path / "s2.jsonl"
    fragment = _tear(path, Message.user("y" * 200_000))

    Transcript(path).append(Message.user("next"))

    assert [m.content for m in Transcript(path).load()] == ["next"]
    assert Transcript(path).corrupt_path.read_bytes() == fragment + b"\n"


@pytest.mark.req("X7")
def test_x7_intact_files_are_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "s3.jsonl"
    Transcript(path).append(Message.user("one"))
    Transcript(path).append(Message.user("two"))

    assert [m.content for m in Transcript(path).load()] == ["one", "two"]
    assert not Transcript(path).corrupt_path.exists()
