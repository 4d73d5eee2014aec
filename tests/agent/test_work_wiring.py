"""The work features wired into a real session: the app-side futures of
AskUserQuestion and ExitPlanMode resolved as the app would, task events, /tasks and /agents,
/clear and the task list, subagent progress and permissions, the fork refusing Agent (AG6)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wire_view import chats, tool_results
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.agent.tool_executor import concurrent_batches
from wave_tui.config.paths import WavePaths
from wave_tui.features.subagents.definitions import BUILTIN_AGENTS
from wave_tui.features.subagents.runner import child_mode
from wave_tui.llm.types import ToolCall
from wave_tui.memory.prompts import render_memory_section
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.fork_gate import ForkToolGate
from wave_tui.session.facade import AgentSession
from wave_tui.session.factory import create_service
from wave_tui.session.types import QuestionAnswer

QUESTION = {
    "question": "Which library?",
    "header": "Library",
    "options": [{"label": "httpx"}, {"label": "requests"}],
}


@pytest.fixture
def make(model_server: ModelServer, project: Path):
    def build(headless: bool = False, **environ: str) -> AgentService:
        env = {
            "WAVE_BASE_URL": model_server.base_url,
            "WAVE_API_KEY": "k",
            "WAVE_MODEL": "test-model",
            "WAVE_DISABLE_AUTO_MEMORY": "1",
            **environ,
        }
        return create_service(AgentOptions(workdir=project, environ=env, headless=headless))

    return build


def key(event: ev.AgentEvent) -> str:
    return type(event).__name__


# -- AskUserQuestion: the app's future -------------------------------------------------------
@pytest.mark.req("AQ1")
async def test_aq1_question_event_future_answer_is_the_tool_result(
    make: Any, model_server: ModelServer
) -> None:
    """The app answers the event's future later, as the dialog does: the test waits for the
    event to arrive instead of assuming it came with the turn (under load it comes late)."""
    service = make()
    asked: asyncio.Queue[ev.QuestionAsked] = asyncio.Queue()

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.QuestionAsked):
            asked.put_nowait(event)

    session = AgentSession(service)
    session.subscribe(on_event)
    model_server.enqueue(tool_call("AskUserQuestion", {"questions": [QUESTION]}), text("ok"))
    turn = asyncio.create_task(session.run_turn("pick one"))
    arrival = asyncio.create_task(asked.get())
    try:
        await asyncio.wait({arrival, turn}, return_when=asyncio.FIRST_COMPLETED)
        requests = [[m["role"] for m in body["messages"]] for body in chats(model_server)]
        assert arrival.done(), f"the turn ended without asking; requests: {requests}"
        event = arrival.result()
        assert event.questions[0].header == "Library"
        assert [o.label for o in event.questions[0].options] == ["httpx", "requests"]
        event.future.set_result((QuestionAnswer(event.questions[0].question, ("httpx",)),))
        result = await turn
    finally:
        arrival.cancel()
        turn.cancel()
        await session.close()
    assert result.status == "completed"
    assert asked.empty()  # asked once
    (answer,) = tool_results(chats(model_server)[-1])
    assert "Which library?" in answer and "httpx" in answer


# -- plan mode: the app's future -------------------------------------------------------------
@pytest.mark.req("PL1", "PL2")
async def test_pl2_plan_dialog_approve_with_accept_edits_survives_the_next_turn(
    make: Any, model_server: ModelServer, project: Path
) -> None:
    service = make()
    decisions: list[ev.PlanApprovalRequested] = []

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PlanApprovalRequested):
            decisions.append(event)
            event.future.set_result("approve_accept_edits")

    session = AgentSession(service)
    session.subscribe(on_event)
    model_server.enqueue(
        tool_call("EnterPlanMode", {}),
        tool_call("Write", {"file_path": "x.txt", "content": "early"}),
        tool_call("ExitPlanMode", {"plan": "1. write x.txt"}),
        text("approved"),
    )
    await session.run_turn("plan first")
    results = tool_results(chats(model_server)[-1])
    assert results[0].startswith("Plan mode is on")
    assert "plan mode" in results[1] and not (project / "x.txt").exists()  # PL1: refused
    assert "approved the plan" in results[2]
    (event,) = decisions
    plan_file = WavePaths.for_workdir(project).plan_file(service.session_id)
    assert event.plan == "1. write x.txt" and event.plan_file == plan_file
    assert plan_file.read_text() == "1. write x.txt\n"
    assert session.status().permission_mode == "acceptEdits"
    model_server.enqueue(tool_call("Write", {"file_path": "x.txt", "content": "now"}), text("w"))
    await session.run_turn("go")
    assert (project / "x.txt").read_text() == "now"  # acceptEdits held into the next turn
    await session.close()


@pytest.mark.req("PL2")
async def test_pl2_keep_planning_stays_in_plan_mode(make: Any, model_server: ModelServer) -> None:
    service = make()

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PlanApprovalRequested):
            event.future.set_result("keep_planning")

    service.subscribe(on_event)
    model_server.enqueue(
        tool_call("EnterPlanMode", {}), tool_call("ExitPlanMode", {"plan": "draft"}), text("k")
    )
    await service.run_turn("plan")
    assert "did not approve" in tool_results(chats(model_server)[-1])[1]
    assert service.policy.mode == "plan"
    await service.destroy()


# -- tasks: events, facade, commands, /clear -------------------------------------------------------
@pytest.mark.req("TK2", "TK3")
async def test_tk3_task_events_and_facade_list(make: Any, model_server: ModelServer) -> None:
    service = make()
    session = AgentSession(service)
    seen: list[ev.TasksChanged] = []
    session.subscribe(lambda e: seen.append(e) if isinstance(e, ev.TasksChanged) else None)
    model_server.enqueue(
        tool_call("TaskCreate", {"subject": "Ship it", "activeForm": "Shipping it"}),
        tool_call("TaskUpdate", {"taskId": "1", "status": "in_progress"}),
        text("ok"),
    )
    await session.run_turn("track")
    assert [[t.status for t in e.tasks] for e in seen] == [["pending"], ["in_progress"]]
    (task,) = await session.tasks()
    assert task.subject == "Ship it" and task.active_form == "Shipping it"
    listing = await session.input.run_command("/tasks")
    assert "Ship it" in getattr(listing, "text", "")
    agents = await session.input.run_command("/agents")
    assert all(d.name in getattr(agents, "text", "") for d in BUILTIN_AGENTS)
    session.clear()  # TK2: a new session starts a new list (no WAVE_TASK_LIST_ID)
    assert await session.tasks() == []
    assert seen[-1].tasks == ()
    await session.close()


@pytest.mark.req("FH10")
async def test_after_compact_tasks_names_the_session_the_user_is_in(
    make: Any, model_server: ModelServer
) -> None:
    """Compaction continues the list under the session's new id: /tasks names that one."""
    session = AgentSession(make())
    assert session.service is not None
    model_server.enqueue(text("hello"), text("the summary"))
    await session.run_turn("hi")
    before = session.service.session_id
    assert await session.compact()
    after = session.service.session_id
    assert after != before
    listing = getattr(await session.input.run_command("/tasks"), "text", "")
    assert listing.splitlines()[0] == f"Task list of this session ({after[:8]}):"
    await session.close()


@pytest.mark.req("TK3")
async def test_tk3_tasks_names_the_list_by_a_short_id_or_its_name(
    make: Any, model_server: ModelServer
) -> None:
    """TK3: `/tasks` heads the list with a short id of the session's list, never its uuid; a
    shared list (WAVE_TASK_LIST_ID) by its name."""
    own = AgentSession(make())
    assert own.service is not None
    session_id = own.service.session_id
    listing = getattr(await own.input.run_command("/tasks"), "text", "")
    assert listing.splitlines()[0] == f"Task list of this session ({session_id[:8]}):"
    assert session_id not in listing
    await own.close()
    shared = AgentSession(make(WAVE_TASK_LIST_ID="team-sprint"))
    shared.start()
    listing = getattr(await shared.input.run_command("/tasks"), "text", "")
    assert listing.splitlines()[0] == 'Task list "team-sprint":'
    await shared.close()


@pytest.mark.req("TK2")
async def test_tk2_shared_list_survives_clear(make: Any, model_server: ModelServer) -> None:
    service = make(WAVE_TASK_LIST_ID="shared")
    model_server.enqueue(tool_call("TaskCreate", {"subject": "Shared step"}), text("ok"))
    await service.run_turn("track")
    service.clear()
    session = AgentSession(service)
    assert [t.subject for t in await session.tasks()] == ["Shared step"]
    await session.close()


# -- subagents -------------------------------------------------------------------------------------
@pytest.mark.req("AG4")
async def test_ag4_child_mode_is_never_wider_than_the_parent() -> None:
    by_name = {d.name: d for d in BUILTIN_AGENTS}
    assert child_mode("bypassPermissions", by_name["Explore"]) == "plan"
    assert child_mode("acceptEdits", by_name["general-purpose"]) == "acceptEdits"
    assert child_mode("plan", by_name["general-purpose"]) == "plan"
    assert child_mode("default", by_name["Plan"]) == "plan"


@pytest.mark.req("AG4", "AG5")
async def test_ag4_subagent_in_a_plan_mode_parent_cannot_write(
    make: Any, model_server: ModelServer, project: Path
) -> None:
    """The parent in plan mode: a general-purpose subagent inherits plan mode, its Write is
    refused (AG4); progress events tell the app what the subagent does (AG5)."""
    service = make()
    service.options.permission_mode = "plan"
    progress: list[ev.SubagentProgress] = []
    service.subscribe(lambda e: progress.append(e) if isinstance(e, ev.SubagentProgress) else None)

    def child(body: dict[str, Any]) -> bool:
        return "You are a subagent" in json.dumps(body["messages"][0])

    model_server.enqueue(
        tool_call("Write", {"file_path": "y.txt", "content": "no"}),
        text("could not write"),
        when=child,
    )
    model_server.enqueue(
        tool_call(
            "Agent",
            {"description": "Try write", "prompt": "write y", "subagent_type": "general-purpose"},
        ),
        text("done"),
        when=lambda b: not child(b),
    )
    await service.run_turn("delegate")
    await service.destroy()
    assert not (project / "y.txt").exists()
    child_bodies = [b for b in chats(model_server) if child(b)]
    assert "plan mode" in tool_results(child_bodies[-1])[0]
    assert "Agent" not in {t["function"]["name"] for t in child_bodies[0]["tools"]}
    assert [(p.phase, p.description) for p in progress] == [
        ("started", "Try write"),
        ("tool", "Try write"),
        ("text", "Try write"),
        ("finished", "Try write"),
    ]
    assert progress[1].text.startswith("Write") and progress[-1].text == "could not write"
    assert len({p.agent_id for p in progress}) == 1
    assert tool_results(chats(model_server)[-1]) == ["could not write"]


@pytest.mark.req("AG4")
async def test_ag4_subagent_gets_the_memory_guidance_and_agents_md(
    make: Any, model_server: ModelServer, project: Path
) -> None:
    (project / "AGENTS.md").write_text("Always use tabs in this project.\n")
    service = make()

    def child(body: dict[str, Any]) -> bool:
        return "You are a subagent" in json.dumps(body["messages"][0])

    model_server.enqueue(text("child answer"), when=child)
    model_server.enqueue(
        tool_call("Agent", {"description": "d", "prompt": "p", "subagent_type": "general-purpose"}),
        text("done"),
        when=lambda b: not child(b),
    )
    await service.run_turn("delegate")
    await service.destroy()
    (body,) = [b for b in chats(model_server) if child(b)]
    assert "Always use tabs in this project." in json.dumps(body["messages"])


@pytest.mark.req("AG5")
def test_ag5_consecutive_agent_calls_form_one_batch() -> None:
    calls = [
        ToolCall(id="1", name="Agent", arguments="{}"),
        ToolCall(id="2", name="Agent", arguments="{}"),
        ToolCall(id="3", name="Read", arguments="{}"),
        ToolCall(id="4", name="Agent", arguments="{}"),
    ]
    assert [[c.id for c in b] for b in concurrent_batches(calls)] == [["1", "2"], ["3"], ["4"]]


@pytest.mark.req("AG6")
@pytest.mark.parametrize(
    "tool",
    ["Agent", "TaskCreate", "TaskUpdate", "TaskStop", "EnterPlanMode", "ExitPlanMode", "WebFetch",
     "AskUserQuestion", "BashOutput"],
)  # fmt: skip
def test_ag6_extraction_fork_refuses_work_tools(tool: str, tmp_path: Path) -> None:
    decision = ForkToolGate(tmp_path / "memory").check(AnalysedUse.of(tool, {}, tmp_path))
    assert not decision.allowed and "not available to the memory extraction" in decision.reason


# -- P6 ------------------------------------------------------------------------------------------
@pytest.mark.req("P6")
def test_p6_memory_prompt_names_plan_and_task_tools_the_agent_offers(make: Any) -> None:
    section = render_memory_section(Path("/mem"))
    part = section[section.index("## Memory and other forms of persistence") :]
    named = {"EnterPlanMode", "ExitPlanMode", "TaskCreate", "TaskUpdate"}
    assert all(name in part for name in named)
    assert named <= {t.name for t in make(headless=True).all_tools()}
