"""Project MCP servers under attack: every project-provided file needs trust, and trust covers
what actually runs (command, args, env, cwd)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import DEMO
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions


def demo_entry() -> dict[str, object]:
    return {"command": sys.executable, "args": [str(DEMO)]}


def mcp_tools(session: AgentSession) -> list[str]:
    assert session.service is not None
    return sorted(t.name for t in session.service.all_tools() if t.name.startswith("mcp__"))


@pytest.mark.parametrize(
    "relative", [".mcp.json", ".wave/settings.json", ".wave/settings.local.json"]
)
async def test_a_server_in_any_project_file_waits_for_trust_in_the_app(
    project: Path, relative: str
) -> None:
    target = project / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"mcpServers": {"demo": demo_entry()}}))
    session = create_session(AgentOptions(workdir=project))
    try:
        session.start()
        await session.wait_tools_started()
        assert mcp_tools(session) == []
        request = next(iter(session.permissions.trust_requests()), None)
        assert request is not None and request.kind == "mcp"
    finally:
        await session.close()


@pytest.mark.parametrize(
    "changed",
    [
        {"args": [str(DEMO), "--extra"]},
        {"env": {"PYTHONPATH": "/tmp/evil"}},
        {"env": {"DEMO": "1"}},
        {"cwd": "/tmp"},
    ],
    ids=["args", "env-added", "env-other", "cwd"],
)
async def test_a_trusted_server_whose_launch_changed_asks_again(
    project: Path, changed: dict[str, object]
) -> None:
    base = {**demo_entry(), "env": {"DEMO": "0"}}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": base}}))
    first = create_session(AgentOptions(workdir=project))
    request = next(iter(first.permissions.trust_requests()), None)
    assert request is not None
    await first.permissions.grant_trust([request])
    await first.close()
    entry = {**base, **changed}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": entry}}))
    second = create_session(AgentOptions(workdir=project))
    try:
        again = next(iter(second.permissions.trust_requests()), None)
        assert again is not None and again.fingerprint != request.fingerprint
        wiring = mcp_of(second.service) if second.service is not None else None
        assert wiring is not None and wiring.trust_needed() is not None
    finally:
        await second.close()
