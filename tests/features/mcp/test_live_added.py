"""MCP servers named while a session runs (settings `mcpServers`, a new `.mcp.json`) are offered
from the next turn: the user's at once, the project's once trusted (FH6)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from wave_tui.agent.service import AgentService
from wave_tui.session import project_trust
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

pytestmark = pytest.mark.req("FH6")
DEMO = Path(__file__).resolve().parents[2] / "mcp" / "servers" / "demo_server.py"
ECHO = "mcp__demo__echo"


@pytest.fixture(autouse=True)
def flat_mcp_tools(isolated_home: Path) -> None:
    """These tests look for the flat `mcp__*` declarations (Exec has tests of its own)."""
    (isolated_home / ".wave").mkdir(exist_ok=True)
    (isolated_home / ".wave" / "settings.json").write_text(json.dumps({"enableExec": False}))


def runnable(service: AgentService) -> list[str]:
    """The tools a turn may call (offered to the model, or through a fold of them)."""
    return [t.name for t in service.all_tools()]


async def test_a_server_added_to_the_user_settings_is_offered_at_the_next_turn(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    service, _ = create_service_with_extensions(
        AgentOptions(workdir=project, environ=model_server.env())
    )
    try:
        service.start()
        model_server.enqueue(text("one"), text("two"))
        await service.run_turn("hello")
        assert ECHO not in runnable(service)
        assert (await service.run_turn("/mcp")).text.startswith("No MCP servers configured")
        (isolated_home / ".wave").mkdir(exist_ok=True)
        (isolated_home / ".wave" / "settings.json").write_text(
            json.dumps(
                {
                    "mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)]}},
                    "enableExec": False,  # the flat declarations are what this test looks for
                }
            )
        )
        service.store.refresh()  # what the settings watch does when the file changes
        service.apply_current_settings()
        await service.run_turn("again")
        assert ECHO in runnable(service)
    finally:
        await service.destroy()


async def test_a_new_mcp_json_waits_for_trust_then_its_tools_are_offered(
    model_server: ModelServer, project: Path
) -> None:
    service, _ = create_service_with_extensions(
        AgentOptions(workdir=project, environ=model_server.env())
    )
    try:
        service.start()
        model_server.enqueue(text("one"), text("two"), text("three"))
        await service.run_turn("hello")
        (project / ".mcp.json").write_text(
            json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)]}}})
        )
        await service.run_turn("again")  # noticed at the turn's start: not run untrusted
        assert ECHO not in runnable(service)
        (request,) = [r for r in project_trust.trust_requests(service) if r.kind == "mcp"]
        assert request.items[0].startswith("demo: ")
        await project_trust.grant_trust(service, request)
        await service.run_turn("and now")
        assert ECHO in runnable(service)
    finally:
        await service.destroy()
