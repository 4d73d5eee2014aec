"""004 §2: the `mcp_servers` option overrides the project's `.mcp.json` (without it, the file's
servers are the session's as in the app)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.model_server import ModelServer
from wave_tui import Agent
from wave_tui.session import project_trust

DEMO_MCP = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"


@pytest.fixture(autouse=True)
def no_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


async def server_names(project: Path, server: ModelServer, **options: object) -> list[str]:
    """The servers the session runs, once the project's ones are trusted."""
    agent = await Agent.create(
        workdir=project, base_url=server.base_url, api_key="k", model="m", **options
    )
    try:
        service = agent._agent()
        for request in project_trust.trust_requests(service):
            await project_trust.grant_trust(service, request)
        return sorted(s.name for s in agent.get_mcp_servers())
    finally:
        await agent.destroy()


async def test_mcp_servers_replace_the_projects_mcp_json(
    project: Path, model_server: ModelServer
) -> None:
    demo = {"command": sys.executable, "args": [str(DEMO_MCP)]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"from-file": demo}}))
    assert await server_names(project, model_server) == ["from-file"]
    assert await server_names(project, model_server, mcp_servers={"mine": demo}) == ["mine"]
    assert await server_names(project, model_server, mcp_servers={}) == []
