"""MCP wiring in a session: trust for project servers in the app, `/mcp`, lazy manager (MC6)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import DEMO
from wave_tui.agent.commands import CommandOutput
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions


def demo_entry() -> dict[str, object]:
    return {"command": sys.executable, "args": [str(DEMO)]}


def mcp_tools(session: AgentSession) -> list[str]:
    assert session.service is not None
    return sorted(t.name for t in session.service.all_tools() if t.name.startswith("mcp__"))


@pytest.mark.req("MC6")
async def test_mc6_project_servers_wait_for_trust_in_the_app(project: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": demo_entry()}}))
    session = create_session(AgentOptions(workdir=project))
    notices: list[str] = []
    session.subscribe(lambda e: notices.append(getattr(e, "text", "")))
    try:
        session.start()
        await session.wait_tools_started()
        assert mcp_tools(session) == []
        assert any("project MCP servers not started" in n for n in notices)
        request = next(iter(session.permissions.trust_requests()), None)
        assert request is not None and request.kind == "mcp"
        assert request.items == (f"demo: {sys.executable} {DEMO}",)
        await session.permissions.grant_trust([request])
        await session.wait_tools_started()
        assert "mcp__demo__echo" in mcp_tools(session)
        assert next(iter(session.permissions.trust_requests()), None) is None
    finally:
        await session.close()
    again = create_session(AgentOptions(workdir=project))  # the answer is remembered
    try:
        again.start()
        await again.wait_tools_started()
        assert again.permissions.trust_requests() == []
        assert "mcp__demo__echo" in mcp_tools(again)
    finally:
        await again.close()


@pytest.mark.req("MC6")
async def test_mc6_a_changed_project_server_asks_again(project: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": demo_entry()}}))
    first = create_session(AgentOptions(workdir=project))
    request = next(iter(first.permissions.trust_requests()), None)
    assert request is not None
    await first.permissions.grant_trust([request])
    await first.close()
    entry = {**demo_entry(), "args": [str(DEMO), "--extra"]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": entry}}))
    second = create_session(AgentOptions(workdir=project))
    try:
        changed = next(iter(second.permissions.trust_requests()), None)
        assert changed is not None and changed.fingerprint != request.fingerprint
    finally:
        await second.close()


@pytest.mark.req("MC6")
async def test_mc6_user_servers_need_no_trust_and_mcp_lists_them(project: Path) -> None:
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": {"mine": demo_entry()}}))
    session = create_session(AgentOptions(workdir=project))
    try:
        session.start()
        assert next(iter(session.permissions.trust_requests()), None) is None
        await session.wait_tools_started()
        assert "mcp__mine__echo" in mcp_tools(session)
        out = await session.input.run_command("/mcp")
        assert isinstance(out, CommandOutput) and not out.is_error
        assert out.text.splitlines()[0].startswith("mine (stdio): ready, ")
        assert "  mcp__mine__echo" in out.text.splitlines()
    finally:
        await session.close()


@pytest.mark.req("MC2")
async def test_mc2_no_servers_no_manager_and_mcp_says_so(project: Path) -> None:
    session = create_session(AgentOptions(workdir=project))
    try:
        session.start()
        assert session.service is not None
        wiring = mcp_of(session.service)
        assert wiring is not None and wiring.manager is None
        out = await session.input.run_command("/mcp")
        assert isinstance(out, CommandOutput) and "No MCP servers configured" in out.text
    finally:
        await session.close()
