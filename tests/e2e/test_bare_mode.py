"""`wave --bare` (and its alias `--safe-mode`) through the real `wave -p`: the same project with
a user hook, a user MCP server, a project settings file, a custom command and a skill runs with
all of them without the flag and with none of them with it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.hook_helpers import configure, project_settings, script
from tests.mcp.conftest import DEMO
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def mcp_offered(body: dict[str, Any]) -> bool:
    """The server's tools, flat (`mcp__mine__echo`) or behind `Exec`, or its resources."""
    names = [t["function"]["name"] for t in body["tools"]]
    return any(n.startswith("mcp__") or n in ("Exec", "ListMcpResources") for n in names)


def customised(project: Path, tmp_path: Path) -> Path:
    """Every kind of customisation, each leaving a trace; returns the hook's marker file."""
    marker = tmp_path / "hook-ran"
    user = Path.home() / ".wave" / "settings.json"
    configure(user, "UserPromptSubmit", str(script(tmp_path, "h.sh", f'touch "{marker}"\n')))
    data = json.loads(user.read_text())
    data["mcpServers"] = {"mine": {"command": sys.executable, "args": [str(DEMO)]}}
    user.write_text(json.dumps(data))
    project_settings(project).parent.mkdir(parents=True, exist_ok=True)
    project_settings(project).write_text(json.dumps({"permissions": {"deny": ["Read"]}}))
    (project / ".wave" / "commands").mkdir(parents=True)
    (project / ".wave" / "commands" / "hello.md").write_text("Say HELLO-FROM-COMMAND\n")
    skill = project / ".wave" / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: GREET-SKILL\n---\nGreet.\n")
    (project / "notes.txt").write_text("NOTES-TEXT\n")
    return marker


@pytest.mark.req("FH12")
@pytest.mark.parametrize("flag", ["--bare", "--safe-mode"])
def test_bare_runs_without_any_customisation(
    model_server: ModelServer, project: Path, tmp_path: Path, flag: str
) -> None:
    marker = customised(project, tmp_path)
    # Without the flag: the hook runs, the server's tools and the skill are offered, the
    # project's deny rule holds and the command expands.
    model_server.enqueue(tool_call("Read", {"file_path": "notes.txt"}), text("done"))
    normal = run_wave("-p", "/hello", cwd=project, server=model_server)
    assert normal.returncode == 0, normal.stderr
    first, second = chats(model_server)
    assert "HELLO-FROM-COMMAND" in json.dumps(first["messages"])
    assert mcp_offered(first) and "Demo server" in json.dumps(first)
    assert "GREET-SKILL" in json.dumps(first)
    assert "NOTES-TEXT" not in json.dumps(second["messages"])  # denied by the project
    assert marker.exists()
    marker.unlink()
    model_server.requests.clear()

    model_server.enqueue(tool_call("Read", {"file_path": "notes.txt"}), text("done"))
    bare = run_wave(flag, "-p", "read the notes", cwd=project, server=model_server)
    assert bare.returncode == 0, bare.stderr
    first, second = chats(model_server)
    assert not mcp_offered(first) and "Demo server" not in json.dumps(first)
    assert "GREET-SKILL" not in json.dumps(first)
    assert "NOTES-TEXT" in json.dumps(second["messages"])  # project settings unread
    assert not marker.exists()  # no hook ran
    model_server.requests.clear()
    command = run_wave(flag, "-p", "/hello", cwd=project, server=model_server)
    assert "unknown command /hello" in command.stdout + command.stderr
    assert chats(model_server) == []
