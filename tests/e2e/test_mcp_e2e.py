"""`wave -p` with a real stdio MCP server from `.mcp.json` (MC1–MC8 end to end)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.mcp.conftest import DEMO, pids_in
from tests.model_server import ModelServer, text, tool_call
from tests.processes import alive
from tests.wave_cli import run_wave
from tests.wire_view import chats, tool_names, tool_results


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.fixture(autouse=True)
def flat_mcp_tools(isolated_home: Path) -> None:
    """These tests look for the flat `mcp__*` declarations (Exec has tests of its own)."""
    (isolated_home / ".wave").mkdir(exist_ok=True)
    (isolated_home / ".wave" / "settings.json").write_text(json.dumps({"enableExec": False}))


def write_mcp_json(project: Path, **servers: dict[str, Any]) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def demo_entry(**env: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(DEMO)], "env": env}


@pytest.mark.req("MC3", "MC8")
def test_mc3_wave_p_calls_a_stdio_server_tool_allowed_by_server_rule(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    write_mcp_json(project, demo=demo_entry(DEMO_PID_FILE=str(pid_file)))
    model_server.enqueue(tool_call("mcp__demo__echo", {"text": "hi"}), text("The server said hi."))
    proc = run_wave(
        "-p", "echo hi", "--allowedTools", "mcp__demo", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The server said hi.\n"
    first, second = chats(model_server)
    assert "mcp__demo__echo" in tool_names(first)  # -p waited for the server before asking
    system = json.dumps(first["messages"][0])
    assert "Demo server: call echo to test the connection." in system  # MC3 instructions
    assert tool_results(second) == ["echo: hi"]
    # req: MC8 — no server process outlives `wave -p`
    server_pid, guard_pid = pids_in(pid_file)
    deadline = time.monotonic() + 15
    while (alive(server_pid) or alive(guard_pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(server_pid) and not alive(guard_pid)


@pytest.mark.req("MC5")
def test_mc5_wave_p_refuses_an_mcp_tool_without_permission(
    model_server: ModelServer, project: Path
) -> None:
    write_mcp_json(project, demo=demo_entry())
    model_server.enqueue(tool_call("mcp__demo__echo", {"text": "hi"}), text("Refused, fine."))
    proc = run_wave("-p", "echo hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Refused, fine.\n"
    (result,) = tool_results(chats(model_server)[1])
    assert "echo: hi" not in result
    assert "mcp__demo__echo" in result or "permission" in result.lower()


@pytest.mark.req("MC5")
def test_mc5_a_tool_rule_allows_only_that_tool(model_server: ModelServer, project: Path) -> None:
    write_mcp_json(project, demo=demo_entry())
    model_server.enqueue(
        tool_call("mcp__demo__env", {"name": "HOME"}),
        tool_call("mcp__demo__echo", {"text": "ok"}),
        text("done"),
    )
    proc = run_wave(
        "-p", "go", "--allowedTools", "mcp__demo__echo", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    requests = chats(model_server)
    assert tool_results(requests[2])[-1] == "echo: ok"
    assert "echo" not in tool_results(requests[1])[0]


@pytest.mark.req("MC7")
def test_mc7_a_server_that_cannot_start_costs_one_line_and_the_turn_answers(
    model_server: ModelServer, project: Path
) -> None:
    write_mcp_json(
        project,
        broken={"command": str(project / "no-such-server")},
        demo=demo_entry(),
    )
    model_server.enqueue(text("still here"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "still here\n"
    lines = [line for line in proc.stderr.splitlines() if "broken" in line]
    assert len(lines) == 1, proc.stderr
    (request,) = chats(model_server)
    names = tool_names(request)
    assert "mcp__demo__echo" in names and not any("broken" in n for n in names)


@pytest.mark.req("MC1")
def test_mc1_a_bad_mcp_json_is_one_line_and_the_turn_answers(
    model_server: ModelServer, project: Path
) -> None:
    (project / ".mcp.json").write_text("{not json")
    model_server.enqueue(text("fine"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "fine\n"
    assert [line for line in proc.stderr.splitlines() if ".mcp.json" in line] != []
    assert len([line for line in proc.stderr.splitlines() if ".mcp.json" in line]) == 1


@pytest.mark.req("MC1")
def test_mc1_servers_from_user_settings_mcp_servers(
    model_server: ModelServer, project: Path
) -> None:
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": {"mine": demo_entry()}, "enableExec": False}))
    model_server.enqueue(tool_call("mcp__mine__echo", {"text": "u"}), text("ok"))
    proc = run_wave("-p", "go", "--allowedTools", "mcp__mine", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert tool_results(chats(model_server)[1]) == ["echo: u"]


@pytest.mark.req("F7", "MC5")
def test_mc5_the_extraction_fork_refuses_mcp_tools_even_when_allowed(
    model_server: ModelServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F7 with MCP: the fork sees the same tools (cache prefix) but may not call a server."""
    monkeypatch.delenv("WAVE_DISABLE_AUTO_MEMORY")
    write_mcp_json(project, demo=demo_entry())
    model_server.enqueue(text("main answer"), when=is_main)
    model_server.enqueue(
        tool_call("mcp__demo__echo", {"text": "from fork"}), text("nothing to save"), when=is_fork
    )
    proc = run_wave("-p", "hi", "--allowedTools", "mcp__demo", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "main answer\n"
    forks = [b for b in chats(model_server) if is_fork(b)]
    assert len(forks) == 2
    assert "mcp__demo__echo" in tool_names(forks[0])  # same tools as the main request
    (result,) = tool_results(forks[1])
    assert "echo: from fork" not in result


@pytest.mark.req("MO3")
def test_mo3_at_server_uri_attaches_the_resource_in_wave_p(
    model_server: ModelServer, project: Path
) -> None:
    write_mcp_json(project, demo=demo_entry())
    model_server.enqueue(text("It says 42."))
    proc = run_wave("-p", "what does @demo:demo://readme say?", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    (first,) = chats(model_server)
    contents = [
        block["text"] if isinstance(block, dict) else str(block)
        for m in first["messages"]
        if m.get("role") == "user"
        for block in (m["content"] if isinstance(m["content"], list) else [m["content"]])
    ]
    attached = '<mcp-resource server="demo" uri="demo://readme">\nDemo readme: the answer is 42.'
    assert any(attached in c for c in contents), contents
    assert {"ListMcpResources", "ReadMcpResource"} <= set(tool_names(first))


@pytest.mark.req("MO3")
def test_mo3_read_mcp_resource_runs_without_asking(
    model_server: ModelServer, project: Path
) -> None:
    write_mcp_json(project, demo=demo_entry())
    model_server.enqueue(
        tool_call("ReadMcpResource", {"server": "demo", "uri": "demo://readme"}), text("Read it.")
    )
    proc = run_wave("-p", "read the readme", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert tool_results(chats(model_server)[1]) == ["Demo readme: the answer is 42."]


@pytest.mark.req("MO4")
def test_mo4_a_prompt_command_runs_as_a_turn_in_wave_p(
    model_server: ModelServer, project: Path
) -> None:
    write_mcp_json(project, demo=demo_entry())
    model_server.enqueue(text("Reviewed."))
    proc = run_wave(
        "-p", "/mcp__demo__review src/a.py focus=style", cwd=project, server=model_server
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Reviewed.\n"
    (first,) = chats(model_server)
    assert first["messages"][-1]["content"] == "Please review src/a.py, looking for style."
    bad = run_wave("-p", "/mcp__demo__review", cwd=project, server=model_server)
    assert bad.returncode == 1
    assert "/mcp__demo__review: missing required argument file" in bad.stderr + bad.stdout
