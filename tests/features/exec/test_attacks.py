"""Hostile Exec scripts (the hardening round's attacks on 004's code mode): escapes from the
QuickJS realm, a script that rewrites the sandbox's own plumbing, resource exhaustion, and nested
calls that try to leave the permission pipeline or the calling agent's declared tools. Each runs
through a real session against the scripted model server and the real demo MCP server."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.features.exec.test_exec import (
    ALLOW_DEMO,
    ServiceMaker,
    chats,
    demo,
    run_script,
    tool_results,
    write_settings,
)
from tests.features.exec.test_exec import services as exec_services
from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent import events as ev
from wave_tui.features.exec import tool as exec_tool

services = exec_services  # the Exec tests' session fixture, under the name the tests ask for
WAIT_LIMIT_S = 60.0  # a condition never met fails the test instead of hanging it


def engine_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("wave-js")]


async def until(condition: Any) -> None:
    async with asyncio.timeout(WAIT_LIMIT_S):
        while not condition():
            await asyncio.sleep(0.05)


def failure(result: str) -> str:
    assert result.startswith("Exec failed: "), result[:500]
    return result.removeprefix("Exec failed: ")


# -- escapes from the realm (held) ---------------------------------------------------------


@pytest.mark.req("EX2")
async def test_ex2_no_route_from_the_realm_to_code_generation_modules_or_host_apis(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    code = """
    const tries = {};
    const attempt = async (name, f) => {
      try { tries[name] = "ran: " + String(await f()); }
      catch (e) { tries[name] = "failed: " + e.name; }
    };
    await attempt("this.constructor", () => this.constructor.constructor("return this")());
    await attempt("globalThis.constructor", () => globalThis.constructor.constructor("return 1")());
    await attempt("Reflect", () => Reflect.construct(Function, ["return 1"])());
    await attempt("generator", () =>
      Object.getPrototypeOf(function* () {}).constructor("yield 1")().next());
    await attempt("asyncGenerator", () =>
      Object.getPrototypeOf(async function* () {}).constructor("yield 1")().next());
    await attempt("bound", () => Function.prototype.constructor.bind(null, "return 1")()());
    await attempt("indirect eval", () => (0, globalThis["ev" + "al"])("1"));
    await attempt("import", () => import("std"));
    await attempt("import os", () => import("os"));
    await attempt("Atomics.wait", () =>
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));
    tries.globals = Object.getOwnPropertyNames(globalThis)
      .filter((k) => ["std", "os", "require", "fetch", "eval", "WebAssembly", "scriptArgs",
                      "print", "XMLHttpRequest", "Deno", "process", "Worker"].includes(k))
      .join(",");
    return tries;
    """
    result = json.loads(await run_script(services, model_server, isolated_home, code))
    assert result.pop("globals") == ""
    assert {k: v.split(":")[0] for k, v in result.items()} == {k: "failed" for k in result}


@pytest.mark.req("EX3")
async def test_ex3_built_in_tools_are_not_reachable_through_tools_and_odd_arguments_are_refused(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    code = """
    const out = {};
    for (const name of ["Bash", "Write", "Read", "Agent", "Exec", "mcp__demo__missing"]) {
      out[name] = typeof tools[name];
    }
    Object.prototype.Bash = () => "polluted";
    out.polluted = typeof tools.Bash === "function" && tools.hasOwnProperty("Bash");
    const refused = async (args) => {
      try { await tools.mcp__demo__echo(args); return "ran"; } catch (e) { return e.message; }
    };
    const cyclic = {}; cyclic.self = cyclic;
    out.cyclic = await refused(cyclic);
    out.bigint = await refused({text: 1n});
    out.array = await refused(["x"]);
    out.string = await refused("text");
    out.getter = await refused({get text() { throw new Error("boom"); }});
    out.proto = await tools.mcp__demo__echo(JSON.parse('{"text": "hi", "__proto__": {"x": 1}}'));
    out.clean = ({}).x === undefined;
    return out;
    """
    result = json.loads(await run_script(services, model_server, isolated_home, code, **ALLOW_DEMO))
    assert result["Bash"] == result["Write"] == result["Read"] == "undefined"
    assert result["Agent"] == result["Exec"] == result["mcp__demo__missing"] == "undefined"
    assert result["polluted"] is False
    assert "circular" in result["cyclic"] or "cycle" in result["cyclic"]
    assert "BigInt" in result["bigint"]
    assert result["array"] == result["string"] == "mcp__demo__echo takes one argument object"
    assert result["getter"] == "boom"
    # `__proto__` from JSON is a plain key: the tool gets its own arguments, the realm stays clean.
    assert result["proto"] == "echo: hi" and result["clean"] is True


# -- the sandbox's own plumbing rewritten by the script (fixed) --------------------------------


FORGED_CALL = """
const real = JSON.stringify;
JSON.stringify = (value, ...rest) => {
  if (value && Array.isArray(value.calls)) {
    return real({calls: [[1, %s, "{}"]], logs: [], cut: false, outcome: null});
  }
  return real(value, ...rest);
};
await tools.mcp__demo__echo({text: "never sent as itself"});
return "unreachable";
"""


@pytest.mark.req("EX2")
@pytest.mark.parametrize("index", ["99", "-1", '"0"'], ids=["past-the-end", "negative", "text"])
async def test_ex2_a_forged_host_call_reaches_no_function_and_ends_the_run(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path, index: str
) -> None:
    result = await run_script(
        services, model_server, isolated_home, FORGED_CALL % index, **ALLOW_DEMO
    )
    assert failure(result) == (
        "the script tampered with the sandbox's plumbing "
        "(a host call names no function the host offered)"
    )


@pytest.mark.req("EX2")
async def test_ex2_a_forged_outbox_that_is_not_json_ends_the_run_with_one_clear_line(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    code = "JSON.stringify = () => 'not json'; return 1"
    result = await run_script(services, model_server, isolated_home, code)
    assert (
        failure(result)
        == "the script tampered with the sandbox's plumbing (the outbox is not JSON)"
    )


@pytest.mark.req("EX4")
async def test_ex4_forged_console_lines_are_cut_at_the_budget_by_the_host_too(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    code = """
    const real = JSON.stringify;
    JSON.stringify = (value, ...rest) => {
      if (value && Array.isArray(value.logs)) value = {...value, logs: ["x".repeat(200000)]};
      return real(value, ...rest);
    };
    return "ok";
    """
    result = await run_script(services, model_server, isolated_home, code)
    value, _, logs = result.partition("\n\nconsole:\n")
    assert value == '"ok"'
    assert logs.endswith("(console output cut at 8,000 characters)")
    assert len(logs) < exec_tool.MAX_LOG_CHARS + 100


@pytest.mark.req("EX4")
@pytest.mark.parametrize(
    "code",
    [
        "JSON.stringify = () => { for (;;) {} }; return 1",
        "Object.defineProperty(Object.prototype, 'toJSON', {get() { for (;;) {} }}); return 1",
    ],
    ids=["stringify", "toJSON"],
)
async def test_ex4_a_loop_planted_in_the_outbox_is_cut_and_the_engine_thread_ends(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    code: str,
) -> None:
    # Before the cut, reading the outbox ran the planted loop with no limit: the engine's thread
    # spun for ever and the process could not exit (its executor joins the thread at exit).
    monkeypatch.setattr(exec_tool, "WALL_TIME_S", 0.5)
    result = await run_script(services, model_server, isolated_home, code)
    assert failure(result).startswith("the script ran past its wall-time budget of 0.5 s")
    await until(lambda: not engine_threads())


# -- resource exhaustion (held) ----------------------------------------------------------------


@pytest.mark.req("EX4")
@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("return 'x'.repeat(2 ** 30).length", "uncaught RangeError: invalid string length"),
        ("const a = []; for (;;) a.push(new Array(1000).fill(1));", "out of memory"),
        ("const f = (n) => f(n + 1) + 1; return f(0)", "Maximum call stack size exceeded"),
        ("await Promise.resolve().then(() => { for (;;) {} }); return 1", "wall-time budget"),
        ("await new Promise(() => {}); return 1", "awaits a promise that nothing will settle"),
    ],
    ids=["string-bomb", "array-bomb", "recursion", "microtask-loop", "never-settles"],
)
async def test_ex4_exhaustion_ends_the_run_with_a_clear_error_and_the_session_goes_on(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    code: str,
    error: str,
) -> None:
    monkeypatch.setattr(exec_tool, "WALL_TIME_S", 1.0)
    result = await run_script(services, model_server, isolated_home, code)
    assert error in failure(result)
    assert chats(model_server)[-1]["messages"][-1]["role"] == "tool"  # the turn went on


@pytest.mark.req("EX4")
@pytest.mark.parametrize("count", [1000, 100_000])
async def test_ex4_a_promise_flood_never_runs_more_than_the_nested_call_budget(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    count: int,
) -> None:
    code = f"""
    const all = [];
    for (let i = 0; i < {count}; i++) all.push(tools.mcp__demo__echo({{text: "n" + i}}));
    await Promise.all(all);
    return "all ran";
    """
    write_settings(isolated_home, mcpServers={"demo": demo()}, **ALLOW_DEMO)
    service = await services()
    ran: list[str] = []
    service.subscribe(lambda e: ran.append(e.name) if isinstance(e, ev.ToolFinished) else None)
    model_server.enqueue(tool_call("Exec", {"code": code}), text("done"))
    await service.run_turn("go")
    result = tool_results(chats(model_server)[-1])[-1]
    reason = failure(result)
    assert reason.startswith("over the budget of 50 nested tool calls") or reason == (
        "the script ran out of memory"
    )
    assert ran.count("mcp__demo__echo") <= exec_tool.MAX_NESTED_CALLS


@pytest.mark.req("EX4")
async def test_ex4_the_real_result_and_image_budgets_hold(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    code = """
    const out = [];
    try { for (let i = 0; i < 5; i++) out.push(await tools.mcp__demo__photo({})); }
    catch (e) { return "caught " + e.message; }
    return "x".repeat(100001);
    """
    result = await run_script(services, model_server, isolated_home, code, **ALLOW_DEMO)
    assert failure(result) == "over the budget of 4 images from nested calls"
    model_server.enqueue(tool_call("Exec", {"code": "return 'x'.repeat(100001)"}), text("done"))
    service = await services()
    await service.run_turn("again")
    big = tool_results(chats(model_server)[-1])[-1]
    assert failure(big).startswith("the returned value is 100,003 characters, over the budget")


# -- the calling agent's pipeline and declared tools (fixed) -----------------------------------


NARROW_AGENT = """\
---
name: narrow
description: may use the weather tool only, through Exec
tools: Exec, mcp__demo__weather
---
NARROW-AGENT: use the tools you have.
"""


def is_child(body: dict[str, Any]) -> bool:
    return "NARROW-AGENT" in json.dumps(body["messages"][0])


@pytest.mark.req("EX3")
async def test_ex3_exec_in_a_subagent_reaches_only_the_leaves_the_subagent_declares(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    agents = isolated_home / ".wave" / "agents"
    agents.mkdir(parents=True)
    (agents / "narrow.md").write_text(NARROW_AGENT)
    write_settings(isolated_home, mcpServers={"demo": demo()}, **ALLOW_DEMO)
    code = """
    const out = {echo: typeof tools.mcp__demo__echo};
    out.weather = await tools.mcp__demo__weather({city: "Oslo"});
    const found = await tools["$codemode"].search({query: ""});
    out.listed = found.map((t) => t.name);
    return out;
    """
    model_server.enqueue(
        tool_call("Agent", {"subagent_type": "narrow", "prompt": "go", "description": "narrow"}),
        when=lambda b: not is_child(b),
    )
    model_server.enqueue(tool_call("Exec", {"code": code}), when=is_child)
    model_server.enqueue(text("child done"), when=is_child)
    model_server.enqueue(text("main done"), when=lambda b: not is_child(b))
    service = await services()
    await service.run_turn("delegate")
    child = [b for b in chats(model_server) if is_child(b)][-1]
    result = json.loads(tool_results(child)[-1])
    assert result == {
        "echo": "undefined",
        "weather": {"city": "Oslo", "celsius": 21},
        "listed": ["mcp__demo__weather"],
    }


@pytest.mark.req("EX3")
@pytest.mark.parametrize(
    ("permissions", "refusal"),
    [
        (
            {"allow": ["mcp__demo__echo"], "deny": ["mcp__demo"]},
            "Permission denied: denied by the permissions.deny rule mcp__demo.",
        ),
        ({"allow": ["Exec", "mcp__demo__weather"]}, "Permission denied: mcp__demo__echo"),
    ],
    ids=["server-wide-deny", "exec-allowed-leaf-not"],
)
async def test_ex3_rules_on_the_leaf_hold_inside_exec_whatever_exec_itself_may_do(
    services: ServiceMaker,
    model_server: ModelServer,
    isolated_home: Path,
    permissions: dict[str, Any],
    refusal: str,
) -> None:
    code = "try { return await tools.mcp__demo__echo({text: 'x'}) } catch (e) { return e.message }"
    result = await run_script(services, model_server, isolated_home, code, permissions=permissions)
    assert json.loads(result).startswith(refusal)


@pytest.mark.req("EX3")
async def test_ex3_exec_in_a_subagent_with_every_tool_reaches_every_leaf_through_its_pipeline(
    services: ServiceMaker, model_server: ModelServer, isolated_home: Path
) -> None:
    def general(body: dict[str, Any]) -> bool:
        return "You are a subagent" in json.dumps(body["messages"][0])

    write_settings(isolated_home, mcpServers={"demo": demo()}, **ALLOW_DEMO)
    code = "return await tools.mcp__demo__echo({text: 'from the child'})"
    model_server.enqueue(
        tool_call(
            "Agent", {"subagent_type": "general-purpose", "prompt": "go", "description": "g"}
        ),
        when=lambda b: not general(b),
    )
    model_server.enqueue(tool_call("Exec", {"code": code}), when=general)
    model_server.enqueue(text("child done"), when=general)
    model_server.enqueue(text("main done"), when=lambda b: not general(b))
    service = await services()
    await service.run_turn("delegate")
    child = [b for b in chats(model_server) if general(b)][-1]
    assert json.loads(tool_results(child)[-1]) == "echo: from the child"
