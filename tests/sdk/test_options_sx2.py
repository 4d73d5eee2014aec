"""004 §2's last options: `stream=False` on the wire, `subagent_headers`, `lsp_servers`,
`watch_skills` and `is_new_worktree` — driving `Agent` against the scripted server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.features.lsp.conftest import fake_entry
from tests.model_server import ModelServer, text, tool_call
from wave_tui import Agent

pytestmark = pytest.mark.req("SX2")


@pytest.fixture(autouse=True)
def no_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


async def make_agent(project: Path, server: ModelServer, **options: Any) -> Agent:
    return await Agent.create(
        workdir=project, base_url=server.base_url, api_key="k", model="m", **options
    )


@pytest.mark.parametrize("stream", [True, False])
async def test_stream_false_sends_a_non_streaming_request(
    project: Path, model_server: ModelServer, stream: bool
) -> None:
    model_server.enqueue(tool_call("Read", {"file_path": "a.txt"}), text("it says hello"))
    (project / "a.txt").write_text("hello\n")
    agent = await make_agent(project, model_server, stream=stream)
    try:
        reply = await agent.send_message("what does a.txt say?")
    finally:
        await agent.destroy()
    assert reply.status == "completed" and reply.text == "it says hello"
    bodies = [r.body for r in model_server.requests]
    assert len(bodies) == 2
    assert all(bool(b.get("stream")) is stream for b in bodies)
    assert all(("stream_options" in b) is stream for b in bodies)
    accept = model_server.requests[0].headers["accept"]
    assert accept == ("text/event-stream" if stream else "application/json")
    # The tool call came back in the JSON reply and ran: its result reached the model.
    assert any("hello" in str(m.get("content")) for m in bodies[1]["messages"][-1:])


async def test_subagent_headers_go_on_that_subagents_requests_only(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(
        tool_call("Agent", {"description": "d", "prompt": "look", "subagent_type": "Explore"}),
        text("explored"),
        text("all done"),
    )
    agent = await make_agent(
        project,
        model_server,
        default_headers={"X-Everyone": "yes"},
        subagent_headers={"Explore": {"X-Sub": "explore"}, "Plan": {"X-Sub": "plan"}},
    )
    try:
        reply = await agent.send_message("explore the code")
    finally:
        await agent.destroy()
    assert reply.text == "all done"
    seen = [r.headers.get("x-sub") for r in model_server.requests]
    assert seen == [None, "explore", None]
    assert all(r.headers.get("x-everyone") == "yes" for r in model_server.requests)
    with pytest.raises(TypeError, match="'subagent_headers'"):
        await make_agent(project, model_server, subagent_headers={"Explore": "X-Sub: 1"})
    with pytest.raises(ValueError, match="'subagent_headers'"):
        await make_agent(project, model_server, subagent_headers={"Explore": {"X": "a\r\nb"}})


async def test_lsp_servers_replace_the_settings_servers(
    project: Path, model_server: ModelServer
) -> None:
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"lspServers": {"theirs": fake_entry("full")}}))
    model_server.enqueue(text("ok"))
    agent = await make_agent(project, model_server, lsp_servers={"mine": fake_entry("full")})
    try:
        shown = (await agent.send_message("/lsp")).text
        await agent.send_message("hi")
        offered = [t["function"]["name"] for t in model_server.requests[-1].body["tools"]]
    finally:
        await agent.destroy()
    assert "mine" in shown and "theirs" not in shown
    assert "LSP" in offered
    with pytest.raises(TypeError, match="'lsp_servers'"):
        await make_agent(project, model_server, lsp_servers=["mine"])


def _write_skill(project: Path, name: str, description: str) -> None:
    folder = project / ".wave" / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\nDo {name}.\n"
    )


def _description(agent: Agent, name: str) -> str | None:
    return next((c.description for c in agent.get_slash_commands() if c.name == name), None)


@pytest.mark.parametrize("watch", [True, False])
async def test_watch_skills_follows_the_skill_folders(
    project: Path, model_server: ModelServer, watch: bool
) -> None:
    _write_skill(project, "tidy", "Tidy up")
    agent = await make_agent(project, model_server, watch_skills=watch)
    try:
        assert _description(agent, "tidy") == "Tidy up"
        _write_skill(project, "release", "Cut a release")
        _write_skill(project, "tidy", "Tidy up, now with tests")
        assert agent.has_slash_command("release") is watch
        assert _description(agent, "tidy") == ("Tidy up, now with tests" if watch else "Tidy up")
    finally:
        await agent.destroy()
    with pytest.raises(TypeError, match="'watch_skills'"):
        await make_agent(project, model_server, watch_skills="no")


def _git_project(project: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)

    git("init", "-q")
    (project / "README").write_text("x\n")
    git("add", "README")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")


async def test_is_new_worktree_makes_or_reuses(project: Path, model_server: ModelServer) -> None:
    _git_project(project)
    tree = project / ".wave" / "worktrees" / "feature-y"
    with pytest.raises(ValueError, match="no worktree 'feature-y'"):
        await make_agent(project, model_server, name="feature-y", is_new_worktree=False)
    assert not tree.exists()
    agent = await make_agent(project, model_server, name="feature-y", is_new_worktree=True)
    try:
        assert agent.working_directory == tree
        (tree / "work.txt").write_text("in progress\n")
    finally:
        await agent.destroy()
    with pytest.raises(ValueError, match="already exists"):
        await make_agent(project, model_server, name="feature-y", is_new_worktree=True)
    agent = await make_agent(project, model_server, name="feature-y", is_new_worktree=False)
    try:
        assert agent.working_directory == tree
        assert (tree / "work.txt").read_text() == "in progress\n"
    finally:
        await agent.destroy()
    # Unsaid: made when missing, gone back into when there.
    agent = await make_agent(project, model_server, name="feature-y")
    try:
        assert agent.working_directory == tree
    finally:
        await agent.destroy()
    with pytest.raises(ValueError, match="needs the option 'name'"):
        await make_agent(project, model_server, is_new_worktree=True)
