"""A code rewind never takes a user's edit for the agent's: the checkpoint's "after" is the hash
of the bytes the tool wrote, even when something runs between the write and the note (a
language server's diagnostics wait, during which the user edits the file)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.features.rewind.conftest import MakeSession, user_settings
from tests.model_server import ModelServer, text, tool_call

EDITING_LSP = Path(__file__).resolve().parent / "servers" / "editing_lsp.py"
USER_LINE = "# the user's line\n"


def editing_server() -> dict[str, object]:
    return {
        "command": sys.executable,
        "args": [str(EDITING_LSP)],
        "extensionToLanguage": {".py": "python"},
        "env": {"EDITING_LSP_LINE": USER_LINE},
    }


@pytest.mark.req("FH1")
async def test_a_user_edit_during_the_diagnostics_wait_is_never_removed_unasked(
    model_server: ModelServer, project: Path, make_session: MakeSession
) -> None:
    user_settings(lspServers={"editing": editing_server()}, lspDiagnosticsTimeout=30)
    target = project.resolve() / "mod.py"
    model_server.enqueue(
        tool_call("Write", {"file_path": str(target), "content": "x = 1\n"}), text("done")
    )
    session = make_session()
    result = await session.run_turn("create mod.py")
    assert result.status == "completed"
    # The server appended the user's line before it published: the wait covered the edit.
    assert target.read_text(encoding="utf-8") == "x = 1\n" + USER_LINE
    plan = await session.rewind.plan(1)
    assert [(p.path, p.action, p.changed_elsewhere) for p in plan] == [(target, "remove", True)]
    outcome = await session.rewind.rewind(1, "code", frozenset())
    assert outcome.code is not None and outcome.code.left_alone == (target,)
    assert target.read_text(encoding="utf-8") == "x = 1\n" + USER_LINE
    # Asked and answered "overwrite": then (and only then) the agent's file goes.
    outcome = await session.rewind.rewind(1, "code", frozenset({target}))
    assert outcome.code is not None and outcome.code.removed == (target,)
    assert not target.exists()
