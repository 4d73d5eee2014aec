"""Exec (004 §5) with the real demo MCP server over stdio and the scripted model server."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import DEMO
from tests.model_server import ModelServer, text, tool_call
from tests.wave_cli import run_wave
from tests.wire_view import chats, tool_names, tool_results
from wave_tui.agent.extensions import ToolCallInfo
from wave_tui.agent.service import AgentService
from wave_tui.agent.tool_executor import concurrent_batches
from wave_tui.features.exec import tool as exec_tool
from wave_tui.features.mcp.wiring import mcp_of
from wave_tui.llm.types import ToolCall
from wave_tui.permissions.fork_gate import ForkToolGate
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.types import AgentOptions

ServiceMaker = Callable[[], Awaitable[AgentService]]


def demo() -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(DEMO)]}


def write_settings(home: Path, **settings: Any) -> None:
    folder = home / ".wave"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))


@pytest.fixture
async def services(model_server: ModelServer, project: Path) -> AsyncIterator[ServiceMaker]:
    made: list[AgentService] = []

    async def make() -> AgentService:
        service, _ = create_service_with_extensions(
            AgentOptions(
                workdir=project,
                environ={**model_server.env(), "WAVE_DISABLE_AUTO_MEMORY": "1"},
            )
        )
        service.start()
        made.append(service)
        wiring = mcp_of(service)
        if wiring is not None:
            await wiring.wait_started()  # as `wave -p` does before its first request
        return service

    yield make
    for service in made:
        await service.destroy()


def texts(message: dict[str, Any]) -> list[str]:
    """A message's texts (consecutive user messages go as one message of text parts)."""
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [p["text"] for p in content or [] if p.get("type") == "text"]


def catalogs(body: dict[str, Any]) -> list[str]:
    return [
        t
        for m in body["messages"]
        if m.get("role") == "user"
        for t in texts(m)
        if "<exec-catalog>" in t
    ]


async def run_script(
    services: ServiceMaker, model_server: ModelServer, home: Path, code: str, **settings: Any
) -> str:
    """One turn whose model runs `code` in Exec; the tool result the next request carries."""
    write_settings(home, mcpServers={"demo": demo()}, **settings)
    service = await services()
    model_server.enqueue(tool_call("Exec", {"code": code}), text("done"))
    await service.run_turn("go")
    return tool_results(chats(model_server)[-1])[-1]


ALLOW_DEMO = {
    "permissions": {
        "allow": [f"mcp__demo__{t}" for t in ("echo", "big", "photo", "hang", "weather")]
    }
}


# -- EX1: one Exec tool, the catalog as a tail isMeta message, the prefix kept -------------------


@pytest.mark.req("EX1")
async def test_ex1_exec_replaces_the_flat_tools_and_the_catalog_is_sent_once_per_change(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    write_settings(isolated_home, mcpServers={"demo": demo()})
    service = await services()
    model_server.enqueue(text("one"), text("two"), text("three"))
    await service.run_turn("hello")
    await service.run_turn("again")
    first, second = chats(model_server)
    assert "Exec" in tool_names(first)
    assert [n for n in tool_names(first) if n.startswith("mcp__")] == []
    (catalog,) = catalogs(first)
    assert "mcp__demo__echo({text: string})" in catalog and "## demo" in catalog
    assert "PARTIAL" not in catalog
    assert catalogs(second) == [catalog]  # not sent again: the pool did not change

    # A second server connects: the tools array stays byte for byte, the new catalog is a tail
    # isMeta message after the first one.
    write_settings(isolated_home, mcpServers={"demo": demo(), "more": demo()})
    service.store.refresh()
    service.apply_current_settings()
    await service.run_turn("and now")
    third = chats(model_server)[-1]
    assert json.dumps(third["tools"]) == json.dumps(second["tools"])
    assert json.dumps(first["tools"]) == json.dumps(second["tools"])
    old, new = catalogs(third)
    assert old == catalog and "mcp__more__echo" in new and "## more" in new
    catalog_at = next(i for i, m in enumerate(third["messages"]) if new in texts(m))
    assert all(m.get("role") != "assistant" for m in third["messages"][catalog_at:])


@pytest.mark.req("EX1")
def test_ex1_an_over_budget_catalog_rotates_per_server_and_says_partial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wave_tui.features.exec import catalog as module
    from wave_tui.mcp.tools import McpTool, RemoteTool

    async def never(server: str, tool: str, args: dict[str, Any]) -> Any:
        raise AssertionError("not called")

    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    pool = [McpTool("first", RemoteTool(f"t{i}", "d" * 50, schema), never) for i in range(20)]
    pool.append(McpTool("last", RemoteTool("only", "the late server's tool", schema), never))
    monkeypatch.setattr(module, "CATALOG_BUDGET_CHARS", 400)
    rendered = module.render_catalog(pool)
    assert "mcp__last__only" in rendered  # the server connected last still shows
    assert f"of {len(pool)} tools listed" in rendered and "PARTIAL — " in rendered
    assert 'tools["$codemode"].search' in rendered


@pytest.mark.req("EX1")
def test_ex1_exec_runs_alone_and_never_in_the_extraction_fork(project: Path) -> None:
    calls = [
        ToolCall(id=str(i), name=n, arguments="{}") for i, n in enumerate(["Exec", "Exec", "Read"])
    ]
    assert [len(batch) for batch in concurrent_batches(calls)] == [1, 1, 1]
    gate = ForkToolGate(project / "memory")
    assert not gate.check(ToolCallInfo.of("x", "Exec", {"code": "return 1"}, project)).allowed


@pytest.mark.req("EX1")
async def test_ex1_search_finds_tools_by_words_and_lists_all_for_an_empty_query(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    code = (
        'const some = await tools["$codemode"].search({query: "long text"});'
        'const all = await tools["$codemode"].search({query: ""});'
        "return [some.map(t => t.name), all.length, some[0].signature]"
    )
    result = await run_script(services, model_server, isolated_home, code)
    names, count, signature = json.loads(result)
    assert names == ["mcp__demo__big"] and count >= 10
    assert signature == "mcp__demo__big({chars: integer})"


# -- EX2: isolation ----------------------------------------------------------------------------


@pytest.mark.req("EX2")
async def test_ex2_no_require_import_eval_function_fetch_or_files(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path, tmp_path: Path
) -> None:
    module = tmp_path / "escape.js"
    marker = tmp_path / "escaped"
    module.write_text(f"globalThis.escaped = 1; export default {json.dumps(str(marker))};")
    code = f"""
    const tries = {{}};
    const attempt = async (name, f) => {{
      try {{ tries[name] = "ran: " + JSON.stringify(await f()); }}
      catch (e) {{ tries[name] = "failed: " + e.name; }}
    }};
    await attempt("require", () => require("fs"));
    await attempt("import", () => import({json.dumps(str(module))}));
    await attempt("eval", () => eval("1 + 1"));
    await attempt("Function", () => Function("return this")());
    await attempt("constructor", () => (() => 0).constructor("return this")());
    await attempt("async", () => (async () => 0).constructor("return 1")());
    await attempt("fetch", () => fetch("http://127.0.0.1:1/"));
    await attempt("std", () => std.open("/etc/passwd", "r"));
    await attempt("os", () => os.readdir("/"));
    tries.escaped = typeof globalThis.escaped;
    return tries;
    """
    result = json.loads(await run_script(services, model_server, isolated_home, code))
    assert result.pop("escaped") == "undefined"
    assert {name: outcome.startswith("failed: ") for name, outcome in result.items()} == {
        name: True for name in result
    }
    assert result["eval"] == "failed: ReferenceError"
    assert result["Function"] == result["constructor"] == "failed: EvalError"
    assert not marker.exists()


# -- EX3: nested calls through the permission pipeline ------------------------------------------


@pytest.mark.req("EX3")
async def test_ex3_a_denied_leaf_is_a_rejection_the_script_catches(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    code = (
        "let said; try { said = await tools.mcp__demo__echo({text: 'hi'}); }"
        " catch (e) { said = 'caught: ' + e.message; }"
        " return [said, await tools.mcp__demo__weather({city: 'Oslo'})];"
    )
    permissions = {"allow": ["Exec", "mcp__demo__weather"], "deny": ["mcp__demo__echo"]}
    result = await run_script(services, model_server, isolated_home, code, permissions=permissions)
    said, weather = json.loads(result)
    assert said.startswith("caught: Permission denied") and "mcp__demo__echo" in said
    assert weather == {"city": "Oslo", "celsius": 21}  # the structured value, no envelope


@pytest.mark.req("EX3")
async def test_ex3_the_rule_identity_is_the_leafs_full_name(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    code = "return await tools.mcp__demo__echo({text: 'through'})"
    result = await run_script(
        services,
        model_server,
        isolated_home,
        code,
        permissions={"allow": ["mcp__demo__echo"]},
    )
    assert json.loads(result) == "echo: through"


@pytest.mark.req("EX3")
def test_ex3_in_wave_p_a_leaf_needing_approval_is_refused(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    write_settings(isolated_home, mcpServers={"demo": demo()})
    code = "try { return await tools.mcp__demo__echo({text: 'x'}) } catch (e) { return e.message }"
    model_server.enqueue(tool_call("Exec", {"code": code}), text("done"), text("nothing"))
    proc = run_wave(
        "-p", "go", cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "1"}
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (result,) = tool_results(chats(model_server)[1])
    refusal = json.loads(result)
    assert refusal.startswith("Permission denied: mcp__demo__echo is an MCP tool")
    assert "running headless (-p)" in refusal


# -- EX4: budgets -----------------------------------------------------------------------------


@pytest.mark.req("EX4")
async def test_ex4_nested_calls_over_the_budget_fail_the_run(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(exec_tool, "MAX_NESTED_CALLS", 2)
    code = "for (let i = 0; i < 3; i++) await tools.mcp__demo__echo({text: 'x'}); return 'all'"
    result = await run_script(services, model_server, isolated_home, code, **ALLOW_DEMO)
    assert result.startswith("Exec failed: over the budget of 2 nested tool calls")


@pytest.mark.req("EX4")
async def test_ex4_console_output_is_cut_at_its_budget(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(exec_tool, "MAX_LOG_CHARS", 30)
    code = "for (let i = 0; i < 100; i++) console.log('line ' + i); return 'ok'"
    result = await run_script(services, model_server, isolated_home, code)
    value, _, logs = result.partition("\n\nconsole:\n")
    assert value == '"ok"'
    assert logs.startswith("line 0\nline 1\n") and "line 99" not in logs
    assert logs.endswith("(console output cut at 30 characters)")


@pytest.mark.req("EX4")
async def test_ex4_a_result_over_its_budget_fails(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(exec_tool, "MAX_RESULT_CHARS", 50)
    code = "return await tools.mcp__demo__big({chars: 60})"
    result = await run_script(services, model_server, isolated_home, code, **ALLOW_DEMO)
    assert result.startswith("Exec failed: the returned value is 62 characters, over the budget")


@pytest.mark.req("EX4")
async def test_ex4_images_over_their_budget_fail_and_within_it_reach_the_model(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(exec_tool, "MAX_IMAGES", 1)
    code = "await tools.mcp__demo__photo({}); await tools.mcp__demo__photo({}); return 1"
    result = await run_script(services, model_server, isolated_home, code, **ALLOW_DEMO)
    assert result.startswith("Exec failed: over the budget of 1 images")


@pytest.mark.req("EX4")
@pytest.mark.parametrize(
    "code", ["await tools.mcp__demo__hang({}); return 1", "while (true) {}"], ids=["await", "loop"]
)
async def test_ex4_the_wall_time_budget_ends_a_stuck_script(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    code: str,
) -> None:
    monkeypatch.setattr(exec_tool, "WALL_TIME_S", 0.5)
    result = await run_script(services, model_server, isolated_home, code, **ALLOW_DEMO)
    assert result.startswith("Exec failed: the script ran past its wall-time budget of 0.5 s")


# -- EX5: enableExec false ----------------------------------------------------------------------


@pytest.mark.req("EX5")
async def test_ex5_enable_exec_false_gives_the_flat_declarations_back(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    write_settings(isolated_home, mcpServers={"demo": demo()}, enableExec=False)
    service = await services()
    model_server.enqueue(text("one"))
    await service.run_turn("hello")
    (body,) = chats(model_server)
    assert "Exec" not in tool_names(body) and "mcp__demo__echo" in tool_names(body)
    assert catalogs(body) == []
