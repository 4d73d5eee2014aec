"""A repository's settings against the user who opens it in the app or a program: its allow rules,
a wider starting mode or the sandbox turned off must not make its commands run unasked — until
the user trusted that project for them; nor may the file rewritten during a session do it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui import Agent
from wave_tui.agent import events as ev
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import NOT_TRUSTED_YET, AgentOptions

pytestmark = pytest.mark.timeout(120)

WIDENING = {"sandbox": {"enabled": False}, "permissions": {"allow": ["Bash"]}}


def _write(path: Path, data: dict[str, Any]) -> None:
    """Replace the file as an editor does (a new file under the old name)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = path.with_suffix(".tmp")
    fresh.write_text(json.dumps(data))
    os.replace(fresh, path)


class Session:
    """An in-process session whose approver refuses and remembers what it was asked."""

    def __init__(self, server: ModelServer, project: Path) -> None:
        self.asked: list[str] = []
        self.notices: list[str] = []

        async def approver(tool: str, args: dict[str, Any], reason: str) -> ev.PermissionChoice:
            self.asked.append(tool)
            return "deny"

        self.session: AgentSession = create_session(
            AgentOptions(workdir=project, environ=server.env(WAVE_DISABLE_AUTO_MEMORY="1")),
            approver=approver,
        )
        self.session.subscribe(self._on_event)

    def _on_event(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.Notice):
            self.notices.append(event.text)

    def held(self) -> list[str]:
        return [n for n in self.notices if NOT_TRUSTED_YET in n and "permissions.allow" in n]


@pytest.mark.req("HR11")
async def test_the_projects_allow_rule_asks_until_trusted(
    model_server: ModelServer, project: Path
) -> None:
    _write(project / ".wave" / "settings.json", {"permissions": {"allow": ["Bash"]}})
    model_server.enqueue(tool_call("Bash", {"command": "touch made.txt"}), text("asked"))
    model_server.enqueue(tool_call("Bash", {"command": "touch again.txt"}), text("ran"))
    app = Session(model_server, project)
    try:
        app.session.start()
        await app.session.run_turn("go")
        assert app.asked == ["Bash"] and not (project / "made.txt").exists()
        assert len(app.held()) == 1
        (request,) = [
            r for r in app.session.permissions.trust_requests() if r.kind == "permissions"
        ]
        assert request.items == ("permissions.allow=Bash",)
        await app.session.permissions.grant_trust([request])
        await app.session.run_turn("again")
    finally:
        await app.session.close()
    assert app.asked == ["Bash"]  # trusted: the second command ran unasked
    assert (project / "again.txt").exists()


@pytest.mark.req("HR11")
def test_wave_p_keeps_the_invokers_trust(model_server: ModelServer, project: Path) -> None:
    _write(project / ".wave" / "settings.json", {"permissions": {"allow": ["Bash"]}})
    model_server.enqueue(tool_call("Bash", {"command": "touch made.txt"}), text("done"))
    proc = run_wave("-p", "go", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert (project / "made.txt").exists()
    assert NOT_TRUSTED_YET not in proc.stderr


@pytest.mark.req("HR1")
@pytest.mark.req("HR11")
@pytest.mark.parametrize("user_sandbox", [False, True])
async def test_a_settings_file_rewritten_mid_session_widens_nothing(
    model_server: ModelServer, project: Path, isolated_home: Path, user_sandbox: bool
) -> None:
    if user_sandbox:
        _write(isolated_home / ".wave" / "settings.json", {"sandbox": {"enabled": True}})
    settings_file = project / ".wave" / "settings.json"
    _write(settings_file, {"permissions": {"allow": ["Read"]}})
    outside = isolated_home / "outside.txt"
    model_server.enqueue(text("first"))
    model_server.enqueue(tool_call("Bash", {"command": f"touch {outside}"}), text("second"))
    app = Session(model_server, project)
    try:
        app.session.start()
        await app.session.permissions.grant_trust(app.session.permissions.trust_requests())
        app.notices.clear()  # the notice of the start, before the user trusted
        await app.session.run_turn("first")
        assert app.held() == []
        _write(settings_file, WIDENING)  # the repository's script, or a pull, rewrites it
        await app.session.run_turn("second")
    finally:
        await app.session.close()
    assert not outside.exists()
    # Without the user's sandbox the command asks; with it, it still runs sandboxed (unasked,
    # and the write outside the project fails).
    assert app.asked == ([] if user_sandbox else ["Bash"])
    (notice,) = app.held()
    assert "sandbox.enabled" in notice


@pytest.mark.req("HR1")
async def test_the_users_own_widening_change_is_said(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    user_file = isolated_home / ".wave" / "settings.json"
    _write(user_file, {"permissions": {"allow": ["Read"]}})
    model_server.enqueue(text("first"))
    model_server.enqueue(tool_call("Bash", {"command": "touch made.txt"}), text("second"))
    app = Session(model_server, project)
    try:
        app.session.start()
        await app.session.run_turn("first")
        assert not [n for n in app.notices if "without asking" in n]
        _write(user_file, {"permissions": {"allow": ["Read", "Bash"]}})
        await app.session.run_turn("second")
    finally:
        await app.session.close()
    assert app.asked == [] and (project / "made.txt").exists()  # the user's own rule applies
    (notice,) = [n for n in app.notices if "without asking" in n]
    assert notice == "settings changed: more runs without asking now: permissions.allow Bash"


@pytest.mark.req("HR11")
async def test_a_program_on_the_sdk_asks_too(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")
    _write(project / ".wave" / "settings.json", {"permissions": {"allow": ["Bash"]}})
    model_server.enqueue(tool_call("Bash", {"command": "touch made.txt"}), text("asked"))
    asked: list[str] = []

    def can_use_tool(tool_name: str, input: dict[str, Any]) -> dict[str, bool]:
        asked.append(tool_name)
        return {"allowed": False}

    async with await Agent.create(
        workdir=str(project),
        base_url=model_server.base_url,
        api_key="k",
        model="test-model",
        can_use_tool=can_use_tool,
    ) as a:
        await a.send_message("go")
    assert asked == ["Bash"] and not (project / "made.txt").exists()
