"""Installed plugins in a real `wave -p` run: their commands, skills, agents, hooks, MCP and LSP
servers reach the model through the project's own loaders, namespaced; bad plugins cost one line."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.features.plugins.builders import make_market, make_plugin, write_json
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats, tool_names

DEMO_MCP = Path(__file__).resolve().parents[2] / "mcp" / "servers" / "demo_server.py"
FAKE_LSP = Path(__file__).resolve().parents[2] / "features" / "lsp" / "servers" / "fake_lsp.py"


@pytest.fixture(autouse=True)
def no_auto_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


def install(project: Path, market: Path, *ids: str, scope: str = "user") -> None:
    add = run_wave("plugin", "marketplace", "add", str(market), cwd=project)
    assert add.returncode == 0, add.stderr
    for plugin_id in ids:
        proc = run_wave("plugin", "install", plugin_id, "--scope", scope, cwd=project)
        assert proc.returncode == 0, proc.stderr


def market_of(root: Path, name: str, *plugins: str) -> Path:
    return make_market(
        root, name, [{"name": p, "source": f"./plugins/{p}", "description": p} for p in plugins]
    )


@pytest.mark.req("PG1")
@pytest.mark.req("PG2")
@pytest.mark.req("PG3")
def test_plugin_commands_skills_agents_and_hooks_reach_the_model(
    model_server: ModelServer, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    log = tmp_path / "hooks.log"
    market = tmp_path / "market"
    make_plugin(market / "plugins" / "alpha", "alpha", hook_log=log)
    make_plugin(
        market / "plugins" / "beta",
        "beta",
        layout=".wave-plugin",
        hook_log=log,
        root_variable="WAVE_PLUGIN_ROOT",
    )
    install(project, market_of(market, "m", "alpha", "beta"), "alpha@m", "beta@m")
    model_server.enqueue(text("done"))
    proc = run_wave("-p", "/alpha:hello world", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    (body,) = chats(model_server)
    users = [m["content"] for m in body["messages"] if m["role"] == "user"]
    assert any("Say hello to world from the alpha plugin." in str(u) for u in users)
    system = body["messages"][0]["content"]
    assert "- alpha:tidy: Tidy things the alpha way" in system
    assert "- beta:tidy: Tidy things the beta way" in system
    agent = next(t for t in body["tools"] if t["function"]["name"] == "Agent")
    kinds = agent["function"]["parameters"]["properties"]["subagent_type"]["enum"]
    assert {"alpha:reviewer", "beta:reviewer"} <= set(kinds)
    cache = isolated_home / ".wave" / "plugins" / "cache" / "m"
    alpha, beta = cache / "alpha" / "1.0.0", cache / "beta" / "1.0.0"
    assert sorted(log.read_text().splitlines()) == [
        f"alpha env {alpha} {alpha}",  # Claude Code's variable in the hook's environment too
        f"alpha hook ran from {alpha}/hooks-handlers/prompt.sh",
        f"beta env {beta} {beta}",
        f"beta hook ran from {beta}/hooks-handlers/prompt.sh",
    ]


@pytest.mark.req("PG2")
def test_plugin_mcp_and_lsp_servers_start_with_the_root_expanded(
    model_server: ModelServer, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    root = make_plugin(tmp_path / "market" / "plugins" / "servers", "servers")
    shutil.copy(DEMO_MCP, root / "demo_server.py")
    shutil.copy(FAKE_LSP, root / "fake_lsp.py")
    write_json(
        root / ".mcp.json",
        {
            "mcpServers": {
                "demo": {
                    "command": sys.executable,
                    "args": ["${CLAUDE_PLUGIN_ROOT}/demo_server.py"],
                }
            }
        },
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
    install(project, market_of(tmp_path / "market", "m", "servers"), "servers@m")
    model_server.enqueue(tool_call("mcp__demo__env", {"name": "CLAUDE_PLUGIN_ROOT"}), text("done"))
    proc = run_wave("-p", "hi", "--allowedTools", "mcp__demo", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    first, second = chats(model_server)
    names = tool_names(first)
    # The plugin's server is connected: its tools reach the model through Exec's catalog.
    assert "Exec" in names and "LSP" in names
    assert "mcp__demo__echo" in json.dumps(first["messages"])
    installed = isolated_home / ".wave" / "plugins" / "cache" / "m" / "servers" / "1.0.0"
    results = [str(m["content"]) for m in second["messages"] if m["role"] == "tool"]
    assert results == [str(installed)]  # the server's environment names its plugin's folder


@pytest.mark.req("PG3")
def test_two_plugins_of_one_name_cost_one_line_and_the_first_still_works(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    make_plugin(one / "plugins" / "dup", "dup", description="first")
    make_plugin(two / "plugins" / "dup", "dup", description="second")
    install(project, market_of(one, "one", "dup"), "dup@one")
    install(project, market_of(two, "two", "dup"), "dup@two")
    model_server.enqueue(text("done"))
    proc = run_wave("-p", "/dup:hello you", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "dup@" in line]
    assert len(warnings) == 1
    assert "already enabled" in warnings[0]
    (body,) = chats(model_server)
    assert any(
        "Say hello to you from the dup plugin." in str(m["content"]) for m in body["messages"]
    )


@pytest.mark.req("PG1")
def test_a_plugin_broken_after_install_is_one_line_and_the_others_load(
    model_server: ModelServer, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    market = tmp_path / "market"
    make_plugin(market / "plugins" / "good", "good")
    make_plugin(market / "plugins" / "bad", "bad")
    install(project, market_of(market, "m", "good", "bad"), "good@m", "bad@m")
    manifest = isolated_home / ".wave/plugins/cache/m/bad/1.0.0/.claude-plugin/plugin.json"
    manifest.write_text("{not json", encoding="utf-8")
    model_server.enqueue(text("done"))
    proc = run_wave("-p", "/good:hello", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    bad_lines = [line for line in proc.stderr.splitlines() if "bad@m" in line]
    assert len(bad_lines) == 1 and "not valid JSON" in bad_lines[0]
    system = chats(model_server)[0]["messages"][0]["content"]
    assert "good:tidy" in system and "bad:tidy" not in system


@pytest.mark.req("PG9")
def test_wave_p_runs_a_project_scope_plugins_hooks_as_the_invoker(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "hooks.log"
    market = tmp_path / "market"
    make_plugin(market / "plugins" / "proj", "proj", hook_log=log)
    install(project, market_of(market, "m", "proj"), "proj@m", scope="project")
    enabled = json.loads((project / ".wave" / "settings.json").read_text())["enabledPlugins"]
    assert enabled == {"proj@m": True}
    model_server.enqueue(text("done"))
    proc = run_wave("-p", "hi", cwd=project, server=model_server)
    assert proc.returncode == 0, proc.stderr
    assert "proj hook ran" in log.read_text()


@pytest.mark.req("PG7")
def test_without_plugins_no_plugin_module_is_imported_and_no_git_runs(
    model_server: ModelServer, project: Path
) -> None:
    from tests.e2e.test_lazy_imports import imported_modules, loaded

    model_server.enqueue(text("hello"))
    proc = run_wave(
        "-p", "hi", cwd=project, server=model_server, env={"PYTHONPROFILEIMPORTTIME": "1"}
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = imported_modules(proc.stderr)
    assert "wave_tui.features.plugins.active" in names  # the probe itself works
    for module in ("manifest", "markets", "install", "git"):
        assert not loaded(names, f"wave_tui.features.plugins.{module}")


@pytest.mark.req("PG7")
def test_start_up_with_plugins_runs_no_git(
    model_server: ModelServer, project: Path, tmp_path: Path
) -> None:
    from tests.e2e.test_lazy_imports import imported_modules, loaded

    market = tmp_path / "market"
    make_plugin(market / "plugins" / "alpha", "alpha")
    install(project, market_of(market, "m", "alpha"), "alpha@m")
    model_server.enqueue(text("hello"))
    proc = run_wave(
        "-p", "hi", cwd=project, server=model_server, env={"PYTHONPROFILEIMPORTTIME": "1"}
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = imported_modules(proc.stderr)
    assert loaded(names, "wave_tui.features.plugins.manifest")  # the plugin did load ...
    assert not loaded(names, "wave_tui.features.plugins.git")  # ... and nothing fetched
    assert not loaded(names, "wave_tui.features.plugins.markets")


@pytest.mark.req("PG8")
def test_slash_plugin_in_wave_p_lists_the_enabled_plugins(project: Path, tmp_path: Path) -> None:
    market = tmp_path / "market"
    make_plugin(market / "plugins" / "alpha", "alpha", version="2.1.0")
    install(project, market_of(market, "m", "alpha"), "alpha@m")
    proc = run_wave("-p", "/plugin", cwd=project, env={"WAVE_BASE_URL": "http://127.0.0.1:9/v1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Enabled plugins:\nalpha@m 2.1.0 (user) The alpha plugin\n"
