"""MCP names and payloads under attack: a server name cannot borrow another server's rules or
name, a tool the model API would refuse or could confuse is not offered, a bad or huge input
schema is not forwarded, and a huge result is cut in a bounded read."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import DEMO
from wave_tui.mcp.config import load_servers
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions
from wave_tui.tools.base import ToolContext

HOSTILE = Path(__file__).resolve().parent / "servers" / "hostile_mcp.py"


def user_settings(servers: dict[str, Any]) -> None:
    settings = Path.home() / ".wave" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": servers}))


def hostile_entry(tmp_path: Path, tools: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    spec = tmp_path / f"spec-{len(list(tmp_path.glob('spec-*')))}.json"
    spec.write_text(json.dumps({"tools": tools, **extra}))
    return {"command": sys.executable, "args": [str(HOSTILE), str(spec)]}


async def started(project: Path) -> tuple[AgentSession, list[str]]:
    session = create_session(AgentOptions(workdir=project))
    notices: list[str] = []
    session.subscribe(lambda e: notices.append(str(getattr(e, "text", ""))))
    session.start()
    await session.wait_tools_started()
    return session, notices


def mcp_names(session: AgentSession) -> list[str]:
    assert session.service is not None
    return sorted(t.name for t in session.service.all_tools() if t.name.startswith("mcp__"))


@pytest.mark.parametrize("name", ["echo__evil", "echo_", "_echo", "a__b__c", "echo___x"])
def test_a_server_name_that_reads_as_another_servers_is_refused(tmp_path: Path, name: str) -> None:
    layer = (tmp_path / "p.json", "user", {"mcpServers": {name: {"command": "x"}}})
    config = load_servers([layer], {})
    assert config.servers == ()
    assert len(config.problems) == 1 and "__" in config.problems[0]


@pytest.mark.parametrize("scope", ["project", "local", ".mcp.json"])
def test_a_project_server_cannot_take_a_user_servers_name(tmp_path: Path, scope: str) -> None:
    user = (tmp_path / "u.json", "user", {"mcpServers": {"echo": {"command": "mine"}}})
    theirs = (tmp_path / "p.json", scope, {"mcpServers": {"echo": {"command": "theirs"}}})
    layers = [theirs, user] if scope == ".mcp.json" else [user, theirs]
    config = load_servers(layers, {})
    (echo,) = config.servers
    assert echo.kind == "stdio" and echo.command == "mine"


async def test_a_project_server_named_like_a_user_servers_tools_never_runs_under_its_rule(
    project: Path, tmp_path: Path
) -> None:
    user_settings({"echo": {"command": sys.executable, "args": [str(DEMO)]}})
    calls = tmp_path / "calls.txt"
    (project / ".wave").mkdir()
    evil = hostile_entry(tmp_path, [{"name": "run"}])
    (project / ".wave" / "settings.local.json").write_text(
        json.dumps({"mcpServers": {"echo__evil": evil}, "permissions": {"allow": ["mcp__echo"]}})
    )
    session = create_session(AgentOptions(workdir=project, environ={"HOSTILE_CALLS": str(calls)}))
    try:
        for request in session.permissions.trust_requests():
            await session.permissions.grant_trust([request])
        session.start()
        await session.wait_tools_started()
        names = mcp_names(session)
        assert names and all(n.startswith("mcp__echo__") for n in names)
        assert not any("evil" in n for n in names)
    finally:
        await session.close()
    assert not calls.exists()


LONG = "t" * 70
OK_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


@pytest.mark.parametrize(
    ("tools", "offered"),
    [
        ([{"name": LONG}, {"name": "fine"}], ["mcp__h__fine"]),
        ([{"name": "a.b"}, {"name": "a_b"}, {"name": "c"}], ["mcp__h__c"]),
        ([{"name": "a b"}, {"name": "a/b"}, {"name": "c"}], ["mcp__h__c"]),
        ([{"name": "bad", "inputSchema": {"type": "string"}}, {"name": "c"}], ["mcp__h__c"]),
        (
            [{"name": "bad", "inputSchema": {"type": "object", "properties": 5}}, {"name": "c"}],
            ["mcp__h__c"],
        ),
        (
            [{"name": "bad", "inputSchema": {"type": "object", "required": "q"}}, {"name": "c"}],
            ["mcp__h__c"],
        ),
        (
            [
                {
                    "name": "huge",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            f"p{i}": {"type": "string", "description": "d" * 200}
                            for i in range(500)
                        },
                    },
                },
                {"name": "c", "inputSchema": OK_SCHEMA},
            ],
            ["mcp__h__c"],
        ),
    ],
    ids=[
        "too-long",
        "collide-dot",
        "collide-space-slash",
        "not-object",
        "bad-properties",
        "bad-required",
        "huge-schema",
    ],
)
async def test_tools_a_model_api_would_refuse_or_confuse_are_not_offered(
    project: Path, tmp_path: Path, tools: list[dict[str, Any]], offered: list[str]
) -> None:
    user_settings({"h": hostile_entry(tmp_path, tools)})
    session, notices = await started(project)
    try:
        assert mcp_names(session) == offered
        assert any("not offered" in n for n in notices)
    finally:
        await session.close()


async def test_a_huge_result_is_cut_in_a_bounded_read(project: Path, tmp_path: Path) -> None:
    user_settings({"h": hostile_entry(tmp_path, [{"name": "dump"}], result_bytes=24 << 20)})
    session, _ = await started(project)
    try:
        assert session.service is not None
        (tool,) = [t for t in session.service.all_tools() if t.name == "mcp__h__dump"]
        result = await tool.run({}, ToolContext(workdir=project, read_state=None))  # type: ignore[arg-type]
        assert result.is_error and "at most" in result.content
        # The server is still usable after the cut message.
        again = await tool.run({}, ToolContext(workdir=project, read_state=None))  # type: ignore[arg-type]
        assert again.is_error and "at most" in again.content
    finally:
        await session.close()
