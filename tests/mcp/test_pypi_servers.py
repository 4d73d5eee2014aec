"""The PyPI reference MCP servers people run, each from its own venv (`tests/mcp/pypi_servers.py`),
driven through `wave -p` and the scripted model server: `mcp-server-git` (MCP SDK 2.x) with and
without `--repository`, and a FastMCP 2.x server written here, over stdio and streamable HTTP."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.git_repos import committed_repo, git
from tests.image_files import all_image_urls, decode, texts_of
from tests.mcp.pypi_servers import fastmcp_python, mcp_server_git
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats, tool_results
from wave_tui import Agent
from wave_tui.agent import events as ev
from wave_tui.agent.commands import CommandOutput
from wave_tui.session.facade import create_session
from wave_tui.session.types import AgentOptions


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def user_servers(servers: dict[str, Any]) -> None:
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    # Flat `mcp__*` tool calls: these tests are about the servers, Exec has its own.
    settings.write_text(json.dumps({"mcpServers": servers, "enableExec": False}))


def wave_p(model_server: ModelServer, cwd: Path, *allowed: str) -> None:
    proc = run_wave("-p", "go", "--allowedTools", ",".join(allowed), cwd=cwd, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The project: a git repository with one commit and one uncommitted change."""
    root = committed_repo(tmp_path / "repo", {"README.md": "hello\n"})
    (root / "README.md").write_text("hello, changed\n")
    git(root, "commit", "-q", "--allow-empty", "-m", "second: the marker commit")
    return root


@pytest.mark.req("MC3")
def test_mcp_server_git_without_repository_answers_about_the_project(
    model_server: ModelServer, repo: Path
) -> None:
    """Started without `--repository` (as most people configure it), the server (MCP SDK 2.x,
    a client on `mcp<2`) answers `git_status` and `git_log` about the project's repository.
    It never asks for the client's roots (its source says so: `repo_path` is the model's to
    give), so wave's roots are checked with server-filesystem in `tests/features/mcp`."""
    user_servers({"git": {"command": str(mcp_server_git()), "args": []}})
    model_server.enqueue(
        tool_call("mcp__git__git_status", {"repo_path": str(repo)}),
        tool_call("mcp__git__git_log", {"repo_path": str(repo), "max_count": 5}),
        text("done"),
    )
    wave_p(model_server, repo, "mcp__git__git_status", "mcp__git__git_log")
    status, log = tool_results(chats(model_server)[-1])
    assert status.startswith("Repository status:") and "modified:   README.md" in status, status
    assert "Message: second: the marker commit" in log and "Message: init" in log, log


@pytest.mark.req("MC3")
def test_mcp_server_git_with_repository_is_confined_to_it(
    model_server: ModelServer, repo: Path, tmp_path: Path
) -> None:
    other = committed_repo(tmp_path / "other", {"a.txt": "a\n"})
    project = tmp_path / "elsewhere"
    project.mkdir()
    user_servers({"git": {"command": str(mcp_server_git()), "args": ["--repository", str(repo)]}})
    model_server.enqueue(
        tool_call("mcp__git__git_log", {"repo_path": str(repo), "max_count": 5}),
        tool_call("mcp__git__git_log", {"repo_path": str(other)}),
        text("done"),
    )
    wave_p(model_server, project, "mcp__git__git_log")
    inside, outside = tool_results(chats(model_server)[-1])
    assert "Message: second: the marker commit" in inside, inside
    assert "outside the allowed repository" in outside and "Message: init" not in outside, outside


FASTMCP2 = Path(__file__).resolve().parent / "servers" / "fastmcp2_server.py"


@pytest.fixture(params=["stdio", "http"])
def fm2_entry(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The FastMCP 2.x server as an `mcpServers` entry, over stdio or streamable HTTP."""
    if request.param == "stdio":
        yield {"command": str(fastmcp_python()), "args": [str(FASTMCP2)]}
        return
    proc = subprocess.Popen(
        [str(fastmcp_python()), str(FASTMCP2), "--http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().split()
        assert line and line[0] == "PORT", line
        yield {"type": "http", "url": f"http://127.0.0.1:{line[1]}/mcp"}
    finally:
        proc.kill()
        proc.wait(10)


FM2_CALLS = ("slow", "ask_name", "summarize", "picture", "task_maybe")


@pytest.mark.req("MA2")
@pytest.mark.req("MA3")
@pytest.mark.req("MA5")
@pytest.mark.req("MA6")
@pytest.mark.req("MA7")
def test_fastmcp2_server_through_wave_p(
    model_server: ModelServer, project: Path, fm2_entry: dict[str, Any]
) -> None:
    """One `wave -p` turn through every client feature of a FastMCP 2.x server: progress does
    not disturb the call, the form is declined (nobody to ask), sampling is refused (no
    `McpSampling` rule), the image is an image part, the template is listed, and of the two
    task tools only the one that may run plainly is offered (and runs plainly)."""
    user_servers({"fm2": fm2_entry})
    model_server.enqueue(
        tool_call("mcp__fm2__slow", {"steps": 3}),
        tool_call("mcp__fm2__ask_name", {}),
        tool_call("mcp__fm2__summarize", {"words": "a b c"}),
        tool_call("mcp__fm2__picture", {}),
        tool_call("ListMcpResources", {"server": "fm2"}),
        tool_call("mcp__fm2__task_maybe", {}),
        text("done"),
    )
    wave_p(model_server, project, *(f"mcp__fm2__{t}" for t in FM2_CALLS), "ListMcpResources")
    bodies = chats(model_server)
    offered = {t["function"]["name"] for t in bodies[0]["tools"]}
    assert {f"mcp__fm2__{t}" for t in FM2_CALLS} <= offered
    assert "mcp__fm2__task_only" not in offered
    assert len(bodies) == 7  # no request of the server's sampling reached the model
    last = bodies[-1]["messages"]
    results = [texts_of(m) for m in last if m.get("role") == "tool"]
    slow, asked, summary, picture, listed, plain = results
    assert slow == "slow done after 3"
    assert asked == "elicitation decline"
    assert summary.startswith("sampling failed:") and "refused" in summary, summary
    assert "[image result 1: 2×2]" in picture and len(picture) < 500, picture
    (url,) = all_image_urls(bodies[-1])
    media_type, _raw, image = decode(url)
    assert media_type == "image/png" and image.getpixel((0, 0)) == (255, 0, 0)
    assert "fm2:notes://{name}" in listed, listed
    assert plain == "ran plainly"


@pytest.mark.req("MA2")
def test_fastmcp2_sampling_allowed_by_a_rule_is_answered_by_the_session_model(
    model_server: ModelServer, project: Path, fm2_entry: dict[str, Any]
) -> None:
    user_servers({"fm2": fm2_entry})
    model_server.enqueue(
        tool_call("mcp__fm2__summarize", {"words": "alpha beta gamma"}),
        text("three greek letters"),  # the sampling request's answer
        text("done"),
    )
    wave_p(model_server, project, "mcp__fm2__summarize", "McpSampling(fm2)")
    bodies = chats(model_server)
    sampling = bodies[1]
    assert sampling["messages"][-1]["content"] == "Summarize: alpha beta gamma"
    assert "tools" not in sampling or not sampling["tools"]
    (result,) = [texts_of(m) for m in bodies[2]["messages"] if m.get("role") == "tool"]
    assert result == "summary: three greek letters"


@pytest.mark.req("MA4")
async def test_fastmcp2_progress_goes_to_the_calls_row_and_its_log_to_mcp(
    model_server: ModelServer, project: Path, fm2_entry: dict[str, Any]
) -> None:
    user_servers({"fm2": fm2_entry})
    model_server.enqueue(
        tool_call("mcp__fm2__slow", {"steps": 2}), tool_call("mcp__fm2__chatty", {}), text("done")
    )
    allowed = ("mcp__fm2__slow", "mcp__fm2__chatty")
    options = AgentOptions(workdir=project, environ=model_server.env(), allowed_tools=allowed)
    session = create_session(options)
    session.start()
    progress: list[ev.ToolProgress] = []
    session.subscribe(lambda e: progress.append(e) if isinstance(e, ev.ToolProgress) else None)
    try:
        await session.wait_tools_started()
        await session.run_turn("go")
        assert [(e.name, e.text) for e in progress] == [
            ("mcp__fm2__slow", "1/2 — reading part 1"),
            ("mcp__fm2__slow", "2/2 — reading part 2"),
        ]
        answer = await session.input.run_command("/mcp")
        assert isinstance(answer, CommandOutput)
        assert "[info] chatty was called" in answer.text, answer.text
    finally:
        await session.close()


@pytest.mark.req("MA3")
async def test_fastmcp2_elicitation_is_answered_by_the_sdk_programs_callback(
    model_server: ModelServer, project: Path, fm2_entry: dict[str, Any]
) -> None:
    user_servers({"fm2": fm2_entry})
    model_server.enqueue(tool_call("mcp__fm2__ask_name", {}), text("done"))
    asked: list[tuple[str, str, dict[str, Any]]] = []

    def answer(server: str, message: str, schema: dict[str, Any]) -> dict[str, Any]:
        asked.append((server, message, schema))
        return {"action": "accept", "content": {"value": "Ada"}}

    async with await Agent.create(
        workdir=project,
        base_url=model_server.base_url,
        api_key="k",
        model="m",
        allowed_tools=["mcp__fm2__ask_name"],
        on_elicitation=answer,
    ) as agent:
        end = await agent.send_message("go")
    assert end.status == "completed", end
    ((server, message, schema),) = asked
    assert (server, message) == ("fm2", "What is your name?")
    assert schema["properties"]["value"]["type"] == "string"
    (result,) = [texts_of(m) for m in chats(model_server)[-1]["messages"] if m["role"] == "tool"]
    assert result == "hello Ada"
