"""The extraction fork and team memory (MM4): its team writes wait in the inbox marked team."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.session.factory import create_service

TEAM_TOPIC = "---\nname: deploys\ntype: project\n---\nDeploys go through CI only.\n"
MINE = "---\nname: me\ntype: user\n---\nThe user likes short answers.\n"


@pytest.mark.req("MM4")
async def test_the_fork_proposes_team_memory_through_the_inbox_and_never_writes_it(
    model_server: ModelServer, project: Path
) -> None:
    team = project / ".wave" / "memory"
    team.mkdir(parents=True)
    (team / "MEMORY.md").write_text("- [CI](ci.md) — CI notes\n")
    env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model"}
    service: AgentService = create_service(AgentOptions(workdir=project, environ=env))
    service.start()
    mem = service.paths.memory_dir
    model_server.enqueue(text("ok"), when=is_main)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(team / "deploys.md"), "content": TEAM_TOPIC}),
        tool_call("Write", {"file_path": str(mem / "me.md"), "content": MINE}),
        text("saved"),
        when=is_fork,
    )
    await service.run_turn("we deploy through CI only; keep answers short")
    await service.extensions.of_type(ExtractionHook).wait()
    await service.destroy()

    fork = next(r.body for r in model_server.requests if is_fork(r.body))
    prompt = fork["messages"][-1]["content"]
    assert f"team memory in `{team}`" in prompt and "marked team" in prompt
    assert not (team / "deploys.md").exists()  # never written by the fork
    assert (mem / "me.md").read_text() == MINE  # the auto memory is written as usual
    results = [
        m["content"]
        for r in model_server.requests
        if is_fork(r.body)
        for m in r.body["messages"]
        if m.get("role") == "tool"
    ]
    assert any("for the team memory (pending item" in c for c in results)

    proc = run_wave("memory", "inbox", "--json", cwd=project)
    (item,) = json.loads(proc.stdout)
    assert item["scope"] == "team" and item["relative"] == "deploys.md"
    listing = run_wave("memory", "inbox", cwd=project).stdout
    assert "deploys.md (new file) [team: .wave/memory/" in listing
    accepted = run_wave("memory", "accept", item["id"], cwd=project)
    assert accepted.returncode == 0, accepted.stderr
    assert (team / "deploys.md").read_text() == TEAM_TOPIC


@pytest.mark.req("MM4")
async def test_a_team_proposal_holding_a_credential_is_refused(
    model_server: ModelServer, project: Path
) -> None:
    team = project / ".wave" / "memory"
    team.mkdir(parents=True)
    env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model"}
    service: AgentService = create_service(AgentOptions(workdir=project, environ=env))
    service.start()
    secret = "---\nname: k\n---\nThe key is AKIAIOSFODNN7EXAMPLE\n"
    model_server.enqueue(text("ok"), when=is_main)
    model_server.enqueue(
        tool_call("Write", {"file_path": str(team / "k.md"), "content": secret}),
        text("done"),
        when=is_fork,
    )
    await service.run_turn("the key")
    await service.extensions.of_type(ExtractionHook).wait()
    await service.destroy()
    assert json.loads(run_wave("memory", "inbox", "--json", cwd=project).stdout) == []
