"""Plugins in a running session: enable and disable take effect from the next turn, without a
restart; a project-scope plugin's hooks, MCP and LSP servers wait for trust in the app."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.features.plugins.builders import make_market, make_plugin, write_json
from tests.model_server import ModelServer, text
from tests.wire_view import chats
from wave_tui.agent.service import AgentService
from wave_tui.session import project_trust
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.plugins import PluginAccess
from wave_tui.session.types import AgentOptions

DEMO_MCP = Path(__file__).resolve().parents[2] / "mcp" / "servers" / "demo_server.py"
FAKE_LSP = Path(__file__).resolve().parents[2] / "features" / "lsp" / "servers" / "fake_lsp.py"


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def agent_kinds(body: dict[str, Any]) -> list[str]:
    agent = next(t for t in body["tools"] if t["function"]["name"] == "Agent")
    kinds: list[str] = agent["function"]["parameters"]["properties"]["subagent_type"]["enum"]
    return kinds


def environ(server: ModelServer) -> dict[str, str]:
    return {
        "WAVE_BASE_URL": server.base_url,
        "WAVE_API_KEY": "k",
        "WAVE_MODEL": "test-model",
        "WAVE_DISABLE_AUTO_MEMORY": "1",
    }


async def installed(
    project: Path, market: Path, plugin_id: str, scope: str = "user"
) -> PluginAccess:
    from wave_tui.config.paths import WavePaths

    access = PluginAccess(WavePaths.for_workdir(project))
    await access.add_market(str(market), project)
    await access.install(plugin_id, scope)  # type: ignore[arg-type]
    return access


@pytest.mark.req("PG10")
async def test_enable_and_disable_take_effect_from_the_next_turn(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    market = tmp_path / "market"
    make_plugin(market / "plugins" / "alpha", "alpha")
    make_market(market, "m", [{"name": "alpha", "source": "./plugins/alpha"}])
    access = await installed(project, market, "alpha@m")
    await access.disable("alpha@m")
    service, _ = create_service_with_extensions(
        AgentOptions(workdir=project, environ=environ(model_server))
    )
    try:
        service.start()
        model_server.enqueue(text("one"), text("two"), text("three"))
        assert service.commands.get("alpha:hello") is None
        await service.run_turn("first")
        await access.enable("alpha@m")
        assert service.commands.get("alpha:hello") is not None
        await service.run_turn("second")
        await access.disable("alpha@m")
        await service.run_turn("third")
        assert service.commands.get("alpha:hello") is None
    finally:
        await service.destroy()
    first, second, third = chats(model_server)
    assert "alpha:reviewer" not in agent_kinds(first)
    assert "alpha:reviewer" in agent_kinds(second)
    assert "alpha:tidy" in second["messages"][0]["content"]
    assert "alpha:reviewer" not in agent_kinds(third)
    assert "alpha:tidy" not in third["messages"][0]["content"]


@pytest.mark.req("PG10")
async def test_a_plugins_mcp_server_starts_and_stops_with_enable_and_disable(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    market = tmp_path / "market"
    root = make_plugin(market / "plugins" / "srv", "srv")
    shutil.copy(DEMO_MCP, root / "demo_server.py")
    write_json(
        root / ".mcp.json",
        {"demo": {"command": sys.executable, "args": ["${WAVE_PLUGIN_ROOT}/demo_server.py"]}},
    )
    make_market(market, "m", [{"name": "srv", "source": "./plugins/srv"}])
    access = await installed(project, market, "srv@m")
    await access.disable("srv@m")
    service, _ = create_service_with_extensions(
        AgentOptions(workdir=project, environ=environ(model_server), headless=True)
    )
    try:
        service.start()
        model_server.enqueue(text("one"), text("two"))
        await service.run_turn("first")
        await access.enable("srv@m")
        await service.run_turn("second")
        await _wait_for_tool(service, "mcp__demo__echo")
        await access.disable("srv@m")
        model_server.enqueue(text("three"))
        await service.run_turn("third")
        assert "mcp__demo__echo" not in [t.name for t in service.all_tools()]
    finally:
        await service.destroy()


async def _wait_for_tool(service: AgentService, name: str) -> None:
    from wave_tui.features.mcp.wiring import mcp_of

    wiring = mcp_of(service)
    assert wiring is not None
    await wiring.wait_started()
    assert name in [t.name for t in service.all_tools()]


@pytest.mark.req("PG9")
async def test_a_project_scope_plugins_code_waits_for_trust_in_the_app(
    project: Path, tmp_path: Path
) -> None:
    market = tmp_path / "market"
    log = tmp_path / "hooks.log"
    root = make_plugin(market / "plugins" / "proj", "proj", hook_log=log)
    shutil.copy(DEMO_MCP, root / "demo_server.py")
    shutil.copy(FAKE_LSP, root / "fake_lsp.py")
    write_json(
        root / ".mcp.json",
        {"demo": {"command": sys.executable, "args": ["${CLAUDE_PLUGIN_ROOT}/demo_server.py"]}},
    )
    write_json(
        root / ".lsp.json",
        {
            "fake": {
                "command": sys.executable,
                "args": ["${CLAUDE_PLUGIN_ROOT}/fake_lsp.py"],
                "extensionToLanguage": {".py": "python"},
            }
        },
    )
    make_market(market, "m", [{"name": "proj", "source": "./plugins/proj"}])
    await installed(project, market, "proj@m", scope="project")
    service, extras = create_service_with_extensions(AgentOptions(workdir=project, environ={}))
    try:
        names = [t.name for t in service.all_tools()]
        assert "mcp__demo__echo" not in names and "LSP" not in names
        await extras.hooks.on_turn_start("hi")
        assert not log.exists()  # the hook did not run
        requests = project_trust.trust_requests(service)
        assert sorted(r.kind for r in requests) == ["hooks", "lsp", "mcp"]
        hooks = next(r for r in requests if r.kind == "hooks")
        assert any("proj/1.0.0/hooks-handlers/prompt.sh" in item for item in hooks.items)
        for request in requests:
            await project_trust.grant_trust(service, request)
        await extras.hooks.on_turn_start("again")
        assert "proj hook ran" in log.read_text()
        assert "LSP" in [t.name for t in service.all_tools()]
    finally:
        await service.destroy()


@pytest.mark.req("PG9")
async def test_a_user_scope_plugins_hooks_need_no_trust(project: Path, tmp_path: Path) -> None:
    market = tmp_path / "market"
    log = tmp_path / "hooks.log"
    make_plugin(market / "plugins" / "mine", "mine", hook_log=log)
    make_market(market, "m", [{"name": "mine", "source": "./plugins/mine"}])
    await installed(project, market, "mine@m")
    service, extras = create_service_with_extensions(AgentOptions(workdir=project, environ={}))
    try:
        await extras.hooks.on_turn_start("hi")
        assert "mine hook ran" in log.read_text()
        assert project_trust.trust_requests(service) == []
    finally:
        await service.destroy()
