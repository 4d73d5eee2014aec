"""`/rewind` keeps what it rewound: the conversation as it was lives on as a fork that `wave
sessions list` shows (its parent the rewound session), with checkpoints of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.features.rewind.conftest import MakeSession, user_settings
from tests.model_server import ModelServer, text, tool_call
from wave_tui.config.paths import WavePaths
from wave_tui.features.rewind.store import CheckpointStore
from wave_tui.session.facade import ProjectSessions


@pytest.mark.req("FH9")
async def test_a_rewound_conversation_is_kept_as_a_fork_with_its_own_checkpoints(
    model_server: ModelServer, project: Path, make_session: MakeSession
) -> None:
    user_settings()
    root = project.resolve()
    paths = WavePaths.for_workdir(root)
    model_server.enqueue(
        text("hello"),
        tool_call("Write", {"file_path": str(root / "a.txt"), "content": "a\n"}),
        text("wrote a"),
    )
    session = make_session()
    assert (await session.run_turn("first")).status == "completed"
    assert (await session.run_turn("second: write a.txt")).status == "completed"
    assert session.service is not None
    sid = session.service.session_id
    outcome = await session.rewind.rewind(2, "both", frozenset())
    assert outcome.text == "second: write a.txt" and not (root / "a.txt").exists()
    kept = outcome.kept_as
    assert kept is not None and kept != sid
    assert [m.content for m in session.messages() if m.role == "user"] == ["first"]
    sessions = ProjectSessions(paths)
    assert {(r.id, r.parent) for r in sessions.rows()} >= {(kept, sid)}
    detail = sessions.detail(kept)
    assert [p.text for p in detail.messages] == ["first", "second: write a.txt"]
    assert [p.files for p in detail.messages][1] == (root / "a.txt",)
    fork_index = CheckpointStore(paths.checkpoint_dir(kept)).records()
    # The session goes on: its new checkpoints are its own, never the fork's.
    model_server.enqueue(
        tool_call("Write", {"file_path": str(root / "b.txt"), "content": "b\n"}), text("wrote b")
    )
    assert (await session.run_turn("third: write b.txt")).status == "completed"
    assert CheckpointStore(paths.checkpoint_dir(kept)).records() == fork_index
    # Undone: the fork, resumed, has the rewound turns.
    session.picker.resume(kept)
    users = [m.content for m in session.messages() if m.role == "user" and not m.is_meta]
    assert users == ["first", "second: write a.txt"]
