"""`sandbox.writablePaths` from the project's settings open a folder to sandboxed commands only
once the user trusted the project for them (real bubblewrap, an in-process session as the app
and the SDK run it); until then one warning names them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent import events as ev
from wave_tui.session.facade import create_session
from wave_tui.session.types import NOT_TRUSTED_YET, AgentOptions

pytestmark = [pytest.mark.req("HR5"), pytest.mark.req("HR11"), pytest.mark.timeout(120)]


async def test_project_writable_paths_open_only_once_trusted(
    model_server: ModelServer, project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    user = isolated_home / ".wave" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"sandbox": {"enabled": True}}))
    (project / ".wave").mkdir()
    (project / ".wave" / "settings.json").write_text(
        json.dumps({"sandbox": {"writablePaths": [str(shared)]}})
    )
    asked: list[str] = []

    async def approver(tool: str, args: dict[str, Any], reason: str) -> ev.PermissionChoice:
        asked.append(tool)
        return "deny"

    model_server.enqueue(tool_call("Bash", {"command": f"echo a > {shared}/a.txt"}), text("1"))
    model_server.enqueue(tool_call("Bash", {"command": f"echo b > {shared}/b.txt"}), text("2"))
    session = create_session(
        AgentOptions(workdir=project, environ=model_server.env(WAVE_DISABLE_AUTO_MEMORY="1")),
        approver=approver,
    )
    notices: list[str] = []
    session.subscribe(lambda e: notices.append(e.text) if isinstance(e, ev.Notice) else None)
    try:
        session.start()
        await session.run_turn("write it")
        assert not (shared / "a.txt").exists()  # sandboxed, the folder read-only
        (warning,) = [n for n in notices if NOT_TRUSTED_YET in n]
        assert "sandbox.writablePaths" in warning
        (request,) = session.permissions.trust_requests()
        assert request.items == (f'sandbox.writablePaths=["{shared}"]',)
        await session.permissions.grant_trust([request])
        await session.run_turn("write it again")
    finally:
        await session.close()
    assert (shared / "b.txt").read_text() == "b\n"
    assert asked == []  # both ran in the sandbox, unasked
