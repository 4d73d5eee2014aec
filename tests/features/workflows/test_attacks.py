"""Hostile workflows (the hardening round's attacks): scripts that would run untrusted, leave
their folder through a link, start agents without end, smuggle code through `args`, or widen
what their agents may do — each through a real session and the scripted model server."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.features.plugins.builders import make_market, make_plugin, write
from tests.features.workflows.conftest import (
    ServiceMaker,
    asks,
    child_requests,
    is_main,
    write_settings,
    write_workflow,
)
from tests.features.workflows.test_workflow_runs import after_tool, record_of, workflow_call
from tests.model_server import ModelServer, text, tool_call
from tests.sdk.programs import run_program
from tests.wave_cli import run_wave
from tests.wire_view import main_chats, tool_results
from wave_tui.agent.service import AgentService
from wave_tui.permissions.policy import PermissionReply
from wave_tui.session.factory import create_service_with_extensions
from wave_tui.session.project_trust import trust_requests
from wave_tui.session.types import AgentOptions

ONE_AGENT = 'return (await phase("p", [{prompt: "child-task"}]))[0].text;\n'


async def run_workflow(
    model_server: ModelServer, service: AgentService, name: str, args: Any = None
) -> str:
    model_server.enqueue(workflow_call(name, args), when=is_main)
    model_server.enqueue(text("done"), when=after_tool)
    await service.run_turn("go")
    return tool_results(main_chats(model_server)[-1])[-1]


# -- where scripts come from ---------------------------------------------------------------


@pytest.mark.req("WK1")
async def test_wk1_a_project_script_linked_out_of_its_folder_is_no_workflow(
    model_server: ModelServer, services: ServiceMaker, project: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "outside" / "id_rsa.js"
    write(secret, "-----BEGIN OPENSSH PRIVATE KEY----- hunter2\n")
    folder = project / ".wave" / "workflows"
    write_workflow(folder, "inside", ONE_AGENT)
    os.symlink(secret, folder / "leak.js")
    os.symlink(folder / "inside.js", folder / "alias.js")  # a link that stays inside is kept
    service = await services()
    result = await run_workflow(model_server, service, "leak")
    assert result.startswith("No workflow named 'leak'")
    assert "alias" in result and "inside" in result
    # Nor is the linked file offered for the user's trust among the project's scripts.
    (request,) = [r for r in trust_requests(service) if r.kind == "workflows"]
    assert not any("leak" in item for item in request.items)
    assert "hunter2" not in json.dumps([r.body for r in model_server.requests])
    assert child_requests(model_server) == []


@pytest.mark.req("WK1")
@pytest.mark.parametrize("name", ["../inside", "../../.wave/workflows/inside", "/etc/passwd"])
async def test_wk1_a_name_with_a_path_finds_nothing(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path, name: str
) -> None:
    write_workflow(isolated_home / ".wave" / "workflows", "inside", ONE_AGENT)
    service = await services()
    result = await run_workflow(model_server, service, name)
    assert f"No workflow named {name!r}" in result
    assert child_requests(model_server) == []


@pytest.mark.req("WK1")
async def test_wk1_a_plugin_workflow_waits_for_trust_like_a_project_one(
    model_server: ModelServer, services: ServiceMaker, project: Path, tmp_path: Path
) -> None:
    market = tmp_path / "market"
    plugin = make_plugin(market / "plugins" / "flows", "flows")
    write(plugin / "workflows" / "fanout.js", ONE_AGENT)
    make_market(market, "m", [{"name": "flows", "source": "./plugins/flows"}])
    for args in (("plugin", "marketplace", "add", str(market)), ("plugin", "install", "flows@m")):
        proc = run_wave(*args, cwd=project)
        assert proc.returncode == 0, proc.stderr
    service = await services()
    result = await run_workflow(model_server, service, "flows:fanout")
    assert "comes from the plugin and is not trusted yet" in result
    assert child_requests(model_server) == []


# -- budgets -------------------------------------------------------------------------------


@pytest.mark.req("WK1")
@pytest.mark.parametrize(
    "code",
    [
        'for (;;) await phase("again", [{prompt: "child-task"}]);',
        'await Promise.all(Array.from({length: 10000}, () => phase("p", ["child-task"])));',
        'await phase("wide", Array.from({length: 10000}, () => "child-task"));',
    ],
    ids=["loop", "promise-all", "one-wide-phase"],
)
async def test_wk1_a_script_that_starts_agents_without_end_stops_at_the_total_budget(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path, code: str
) -> None:
    write_settings(isolated_home, workflows={"maxAgents": 3})
    write_workflow(isolated_home / ".wave" / "workflows", "flood", code)
    for _ in range(3):
        model_server.enqueue(text("child answer"), when=asks("child-task"))
    service = await services()
    result = await run_workflow(model_server, service, "flood")
    assert "failed" in result and "more than 3 agents" in result
    assert len(child_requests(model_server)) <= 3
    assert record_of(result)["status"] == "failed"


@pytest.mark.req("WK1")
async def test_wk1_args_are_data_never_code(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path
) -> None:
    write_workflow(
        isolated_home / ".wave" / "workflows",
        "echo",
        "return JSON.stringify([args, typeof globalThis.pwned]);",
    )
    hostile = {"x": '"}; globalThis.pwned = 1; ({"', "y": "\u2028}) ; pwned = 2 //", "z": "*/"}
    service = await services()
    result = await run_workflow(model_server, service, "echo", hostile)
    assert json.loads(result.split("Result:\n")[1].split("\nRecord:")[0]) == [hostile, "undefined"]


# -- what the run's agents may do ---------------------------------------------------------


@pytest.mark.req("WK4")
async def test_wk4_a_run_grant_never_beats_a_deny_rule_and_grants_nothing_else(
    model_server: ModelServer, project: Path, isolated_home: Path
) -> None:
    # The user allows the run's `// permissions: Bash`; the settings deny `rm`: the deny holds
    # inside the run, and a tool the script did not name (Write) is still asked.
    write_settings(isolated_home, permissions={"deny": ["Bash(rm:*)"]})
    write_workflow(
        isolated_home / ".wave" / "workflows",
        "granted",
        '// permissions: Bash\nreturn (await phase("p", [{prompt: "child-task"}]))[0].text;\n',
    )
    victim = project / "victim.txt"
    victim.write_text("keep me")
    questions: list[str] = []

    async def approver(tool: str, args: dict[str, Any], reason: str) -> PermissionReply:
        questions.append(tool)
        return "allow_once" if tool == "Workflow" else "deny"

    model_server.enqueue(tool_call("Bash", {"command": f"rm {victim}"}), when=asks("child-task"))
    model_server.enqueue(
        tool_call("Write", {"file_path": str(project / "new.txt"), "content": "x"}),
        when=lambda b: asks("")(b) and "rm" in json.dumps(b["messages"][-1]),
    )
    model_server.enqueue(text("child gave up"), when=asks(""))
    service, _ = create_service_with_extensions(
        AgentOptions(
            workdir=project,
            environ={**model_server.env(), "WAVE_DISABLE_AUTO_MEMORY": "1"},
        ),
        approver=approver,
    )
    service.start()
    try:
        result = await run_workflow(model_server, service, "granted")
    finally:
        await service.destroy()
    assert "completed" in result
    assert victim.read_text() == "keep me"
    assert not (project / "new.txt").exists()
    assert questions == ["Workflow", "Write"]
    child_results = [r for b in child_requests(model_server) for r in tool_results(b)]
    assert any("denied by the permissions.deny rule" in r for r in child_results)


SDK_PROGRAM = """
import asyncio
from wave_tui import Agent


async def main() -> None:
    agent = await Agent.create(permission_mode="bypassPermissions")
    try:
        await agent.send_message("go")
    finally:
        await agent.destroy()


asyncio.run(main())
"""


@pytest.mark.req("WK1")
def test_wk1_an_sdk_program_never_runs_an_untrusted_project_workflow_even_in_bypass(
    model_server: ModelServer, project: Path
) -> None:
    write_workflow(project / ".wave" / "workflows", "fanout", ONE_AGENT)
    model_server.enqueue(workflow_call("fanout"), when=is_main)
    model_server.enqueue(text("refused"), when=after_tool)
    proc = run_program(
        SDK_PROGRAM, cwd=project, server=model_server, env={"WAVE_DISABLE_AUTO_MEMORY": "1"}
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = tool_results(main_chats(model_server)[-1])[-1]
    assert "comes from the project and is not trusted yet" in result
    assert child_requests(model_server) == []
