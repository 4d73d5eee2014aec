"""Workflow runs in a real session against the scripted model server: a phase's agents in flight
together, a failing agent, the record under the session, budgets, stopping from /workflows, a
background run's `<task-notification>`, trust for project workflows."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.features.workflows.conftest import (
    ServiceMaker,
    asks,
    child_requests,
    is_main,
    until,
    write_settings,
    write_workflow,
)
from tests.model_server import ModelServer, error, text, tool_calls
from tests.wire_view import main_chats, tool_names, tool_results
from wave_tui.agent.commands import CommandOutput
from wave_tui.agent.service import AgentService
from wave_tui.features.workflows.wiring import workflows_of
from wave_tui.session.project_trust import grant_trust, trust_requests

FANOUT = """\
// Two agents at once, then their answers joined
const found = await phase("search", [
  { description: "alpha", prompt: "alpha-task about " + args.topic },
  { description: "beta", prompt: "beta-task" },
]);
return found.map((r) => (r.ok ? r.text : "ERR " + r.error)).join(" | ");
"""


def workflow_call(name: str, args: Any = None, background: bool = False) -> Any:
    call: dict[str, Any] = {"name": name, "args": args}
    if background:
        call["run_in_background"] = True
    return tool_calls([("Workflow", call)])


def after_tool(body: dict[str, Any]) -> bool:
    return is_main(body) and body["messages"][-1].get("role") == "tool"


async def command_output(service: AgentService, args: str) -> str:
    command = service.commands.get("workflows")
    assert command is not None
    output = await command.run(args)
    assert isinstance(output, CommandOutput)
    return output.text


def record_of(result: str) -> dict[str, Any]:
    path = next(w for w in result.split() if w.endswith(".json"))
    return json.loads(Path(path).read_text())


@pytest.mark.req("WK1")
async def test_a_phase_runs_its_agents_in_parallel_and_the_run_is_recorded(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path
) -> None:
    write_workflow(isolated_home / ".wave" / "workflows", "fanout", FANOUT)
    hold_alpha, hold_beta = threading.Event(), threading.Event()
    model_server.enqueue(text("ALPHA-FOUND", hold=hold_alpha), when=asks("alpha-task about x"))
    model_server.enqueue(text("BETA-FOUND", hold=hold_beta), when=asks("beta-task"))
    model_server.enqueue(workflow_call("fanout", {"topic": "x"}), when=is_main)
    model_server.enqueue(text("all done"), when=after_tool)
    service = await services()
    turn = asyncio.create_task(service.run_turn("research x"))
    try:
        # Both agents' requests are in flight while neither has been answered.
        await until(lambda: len(child_requests(model_server)) == 2)
        feature = workflows_of(service)
        assert feature is not None
        (run,) = feature.runs.runs()
        assert run.phase == "search" and run.status == "running"
        assert [a.status for a in run.phases[0].agents] == ["running", "running"]
    finally:
        hold_alpha.set()
        hold_beta.set()
    await turn
    result = tool_results(main_chats(model_server)[-1])[-1]
    assert "ALPHA-FOUND | BETA-FOUND" in result
    record = record_of(result)
    assert record["status"] == "completed" and record["name"] == "fanout"
    assert record["result"] == "ALPHA-FOUND | BETA-FOUND"
    (phase,) = record["phases"]
    assert phase["name"] == "search"
    assert [a["status"] for a in phase["agents"]] == ["completed", "completed"]
    assert all(a["tokens"] > 0 for a in phase["agents"])
    assert Path(record["record_file"]).parent.parent.name == service.session_id
    # The main agent is offered Workflow; its workflow's agents never are (nor Agent).
    assert "Workflow" in tool_names(main_chats(model_server)[0])
    assert all("Workflow" not in tool_names(b) for b in child_requests(model_server))


@pytest.mark.req("WK1")
async def test_a_failing_agent_fails_its_entry_not_the_run(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path
) -> None:
    write_workflow(isolated_home / ".wave" / "workflows", "fanout", FANOUT)
    model_server.enqueue(text("ALPHA-FOUND"), when=asks("alpha-task"))
    model_server.enqueue(error(400, "beta exploded"), when=asks("beta-task"))
    model_server.enqueue(workflow_call("fanout", {"topic": "y"}), when=is_main)
    model_server.enqueue(text("done"), when=after_tool)
    service = await services()
    await service.run_turn("go")
    result = tool_results(main_chats(model_server)[-1])[-1]
    assert "ALPHA-FOUND | ERR " in result and "beta exploded" in result
    record = record_of(result)
    assert record["status"] == "completed"
    assert [a["status"] for a in record["phases"][0]["agents"]] == ["completed", "failed"]


@pytest.mark.req("WK1")
async def test_more_agents_than_the_budget_fail_the_run_before_any_starts(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path
) -> None:
    write_settings(isolated_home, workflows={"maxAgents": 1})
    write_workflow(isolated_home / ".wave" / "workflows", "fanout", FANOUT)
    model_server.enqueue(workflow_call("fanout", {"topic": "z"}), when=is_main)
    model_server.enqueue(text("done"), when=after_tool)
    service = await services()
    await service.run_turn("go")
    result = tool_results(main_chats(model_server)[-1])[-1]
    assert "failed" in result and "more than 1 agents" in result
    assert child_requests(model_server) == []


@pytest.mark.req("WK1")
async def test_agents_at_once_are_bounded_and_the_wall_time_ends_the_run(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path
) -> None:
    # Alpha answers only once beta's request has arrived: with one agent at a time beta never
    # starts, so only the wall-time budget ends the run.
    write_settings(isolated_home, workflows={"maxConcurrentAgents": 1, "maxWallSeconds": 2})
    write_workflow(isolated_home / ".wave" / "workflows", "fanout", FANOUT)
    beta_arrived = threading.Event()

    def beta(body: dict[str, Any]) -> bool:
        if asks("beta-task")(body):
            beta_arrived.set()
            return True
        return False

    model_server.enqueue(text("ALPHA-FOUND", hold=beta_arrived), when=asks("alpha-task"))
    model_server.enqueue(text("BETA-FOUND"), when=beta)
    model_server.enqueue(workflow_call("fanout", {"topic": "w"}), when=is_main)
    model_server.enqueue(text("done"), when=after_tool)
    service = await services()
    try:
        await service.run_turn("go")
    finally:
        beta_arrived.set()  # the held reply ends either way
    result = tool_results(main_chats(model_server)[-1])[-1]
    assert "wall-time budget of 2 s" in result
    assert child_requests(model_server, "beta-task") == []
    record = record_of(result)
    assert record["status"] == "failed"
    assert [a["status"] for a in record["phases"][0]["agents"]] == ["stopped", "stopped"]


@pytest.mark.req("WK2")
@pytest.mark.req("WK3")
async def test_workflows_lists_live_phases_and_stops_a_background_run_unannounced(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path
) -> None:
    write_workflow(isolated_home / ".wave" / "workflows", "fanout", FANOUT)
    hold = threading.Event()
    model_server.enqueue(text("ALPHA-FOUND", hold=hold), when=asks("alpha-task"))
    model_server.enqueue(text("BETA-FOUND", hold=hold), when=asks("beta-task"))
    model_server.enqueue(workflow_call("fanout", {"topic": "v"}, background=True), when=is_main)
    model_server.enqueue(text("started it"), when=after_tool)
    service = await services()
    try:
        await service.run_turn("go")
        started = tool_results(main_chats(model_server)[-1])[-1]
        assert "running in the background with run id" in started
        await until(lambda: len(child_requests(model_server)) == 2)
        listing = await command_output(service, "")
        run_id = started.split("run id ")[1].split(".")[0]
        assert f"{run_id} [running] fanout, background" in listing
        assert "phase search (running)" in listing
        assert "[running] alpha (general-purpose" in listing
        stopped = await command_output(service, f"stop {run_id}")
        assert stopped == f"Workflow run {run_id} (fanout): stopped."
    finally:
        hold.set()
    feature = workflows_of(service)
    assert feature is not None
    assert feature.runs.get(run_id) is not None
    assert feature.before_request() == []  # a stopped run is never announced
    record = json.loads(feature.runs.get(run_id).record_file.read_text())  # type: ignore[union-attr]
    assert record["status"] == "stopped"


@pytest.mark.req("WK3")
async def test_a_background_run_ends_with_a_workflow_task_notification(
    model_server: ModelServer, services: ServiceMaker, isolated_home: Path
) -> None:
    write_workflow(isolated_home / ".wave" / "workflows", "fanout", FANOUT)
    model_server.enqueue(text("ALPHA-FOUND"), when=asks("alpha-task"))
    model_server.enqueue(text("BETA-FOUND"), when=asks("beta-task"))
    model_server.enqueue(workflow_call("fanout", {"topic": "u"}, background=True), when=is_main)
    model_server.enqueue(text("started it"), when=after_tool)
    model_server.enqueue(
        text("the workflow finished"),
        when=lambda b: is_main(b) and "<task-type>workflow</task-type>" in json.dumps(b),
    )
    service = await services()
    await service.run_turn("go")
    # The idle session wakes by itself and tells the model.
    await until(lambda: any("workflow finished" in json.dumps(m.content) for m in service.messages))
    note = next(m for m in service.messages if m.meta.get("taskNotification"))
    assert note.is_meta
    assert "<task-type>workflow</task-type>" in note.content
    assert "<status>completed</status>" in note.content
    output = note.content.split("<output-file>")[1].split("</output-file>")[0]
    assert json.loads(Path(output).read_text())["result"] == "ALPHA-FOUND | BETA-FOUND"


@pytest.mark.req("WK1")
async def test_a_project_workflow_runs_only_once_trusted(
    model_server: ModelServer, services: ServiceMaker, project: Path
) -> None:
    write_workflow(project / ".wave" / "workflows", "fanout", FANOUT)
    model_server.enqueue(workflow_call("fanout", {"topic": "t"}), when=is_main)
    model_server.enqueue(text("refused"), when=after_tool)
    service = await services()
    await service.run_turn("go")
    result = tool_results(main_chats(model_server)[-1])[-1]
    assert "not trusted yet" in result
    assert child_requests(model_server) == []
    (request,) = [r for r in trust_requests(service) if r.kind == "workflows"]
    assert any("fanout" in item for item in request.items)
    await grant_trust(service, request)
    model_server.enqueue(text("ALPHA-FOUND"), when=asks("alpha-task"))
    model_server.enqueue(text("BETA-FOUND"), when=asks("beta-task"))
    model_server.enqueue(workflow_call("fanout", {"topic": "t"}), when=is_main)
    model_server.enqueue(text("ran"), when=after_tool)
    await service.run_turn("again")
    assert "ALPHA-FOUND | BETA-FOUND" in tool_results(main_chats(model_server)[-1])[-1]
    assert not [r for r in trust_requests(service) if r.kind == "workflows"]
