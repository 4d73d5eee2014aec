"""A conversation rewind rewinds what the agent has read: a file only the rewound turns read
is read afresh, never answered "unchanged since the last Read" with no message holding it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.rewind.conftest import MakeSession
from tests.model_server import ModelServer, text, tool_call
from tests.wire_view import chats, tool_results


def last_tool_result(server: ModelServer) -> str:
    return tool_results(chats(server)[-1])[-1]


@pytest.mark.req("FH7")
async def test_a_file_only_rewound_turns_read_is_read_again_in_full(
    model_server: ModelServer, project: Path, make_session: MakeSession
) -> None:
    notes = project.resolve() / "notes.txt"
    notes.write_text("the secret word is teal\n", encoding="utf-8")
    read = tool_call("Read", {"file_path": str(notes)})
    model_server.enqueue(text("hello"), read, text("read it"))
    session = make_session()
    assert (await session.run_turn("hi")).status == "completed"
    assert (await session.run_turn("read notes.txt")).status == "completed"
    assert "teal" in last_tool_result(model_server)
    outcome = await session.rewind.rewind(2, "conversation", frozenset())
    assert outcome.text == "read notes.txt"
    assert "teal" not in str([m.content for m in session.messages()])
    model_server.enqueue(read, text("read again"))
    assert (await session.run_turn("read notes.txt")).status == "completed"
    again = last_tool_result(model_server)
    assert "still current" not in again
    assert "teal" in again
