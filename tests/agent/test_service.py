"""The agent service loop through its public async API."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from tests.wire_view import dynamic_block
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentService


def transcript_roles(service: AgentService) -> list[str]:
    lines = service.transcript.path.read_text().splitlines()
    return [json.loads(line)["role"] for line in lines]


async def test_events_stream_text_tools_usage_and_turn_end(
    make_service, model_server: ModelServer, project: Path
) -> None:
    (project / "a.txt").write_text("alpha\n")
    model_server.enqueue(tool_call("Read", {"file_path": "a.txt"}), text("it says alpha"))
    service: AgentService = make_service()
    seen: list[ev.AgentEvent] = []
    service.subscribe(seen.append)
    result = await service.run_turn("what is in a.txt?")
    await service.destroy()
    assert result.status == "completed" and result.text == "it says alpha"
    kinds = [type(e).__name__ for e in seen]
    for expected in (
        "UserMessageAdded",
        "TextDelta",
        "ToolStarted",
        "ToolFinished",
        "UsageUpdated",
    ):
        assert expected in kinds
    assert kinds[-2:] == ["TurnEnded", "BusyChanged"] or kinds[-1] == "BusyChanged"
    started = next(e for e in seen if isinstance(e, ev.ToolStarted))
    assert started.name == "Read" and started.key_arg == "a.txt"
    streamed = "".join(e.text for e in seen if isinstance(e, ev.TextDelta))
    assert streamed == "it says alpha"


@pytest.mark.req("CV3")
async def test_abort_mid_stream_leaves_no_half_written_entry(
    make_service, model_server: ModelServer
) -> None:
    """CV3: what streamed before Esc is one whole assistant message, then the interruption note."""
    model_server.enqueue(text("word " * 200, delay=0.02))
    service: AgentService = make_service()
    deltas: list[str] = []
    service.subscribe(lambda e: deltas.append(e.text) if isinstance(e, ev.TextDelta) else None)
    turn = asyncio.create_task(service.run_turn("talk"))
    while len(deltas) < 3:
        await asyncio.sleep(0.01)
    service.abort()
    result = await turn
    assert result.status == "aborted"
    assert transcript_roles(service) == ["user", "assistant", "user"]
    assert [m.role for m in service.messages] == ["user", "assistant", "user"]
    partial = service.messages[1].content
    assert partial and ("word " * 200).startswith(partial)
    assert service.messages[2].content == "[Request interrupted by user]"
    model_server.enqueue(text("fresh"))
    assert (await service.run_turn("again")).text == "fresh"
    await service.destroy()


@pytest.mark.req("AC8")
async def test_abort_during_a_tool_kills_it_and_closes_the_call(
    make_service, model_server: ModelServer, project: Path
) -> None:
    """AC8: abort during a tool kills it and closes the call."""
    model_server.enqueue(tool_call("Bash", {"command": "sleep 30"}))
    service: AgentService = make_service(permission_mode="bypassPermissions")
    started = asyncio.Event()
    service.subscribe(lambda e: started.set() if isinstance(e, ev.ToolStarted) else None)
    turn = asyncio.create_task(service.run_turn("sleep"))
    await asyncio.wait_for(started.wait(), 10)
    await asyncio.sleep(0.2)
    service.abort()
    result = await asyncio.wait_for(turn, 10)
    assert result.status == "aborted"
    roles = transcript_roles(service)
    # the call got an "interrupted" result; the interruption note follows it
    assert roles == ["user", "assistant", "tool", "user"]
    await service.destroy()


@pytest.mark.req("AC9")
async def test_queued_messages_run_in_order(make_service, model_server: ModelServer) -> None:
    """AC9: queued messages run in order."""
    model_server.enqueue(text("one", delay=0.05), text("two"), text("three"))
    service: AgentService = make_service()
    queues: list[tuple[str, ...]] = []
    service.subscribe(lambda e: queues.append(e.queued) if isinstance(e, ev.QueueChanged) else None)
    await service.send("first")
    await service.send("second")
    await service.send("third")
    await service.wait_idle()
    users = [m.content for m in service.messages if m.role == "user"]
    assert users == ["first", "second", "third"]
    assert ("second", "third") in queues  # the queue was visible while busy
    await service.destroy()


async def test_settings_change_is_in_force_from_the_next_turn(
    make_service, model_server: ModelServer, project: Path
) -> None:
    service: AgentService = make_service()
    await service.run_turn("hi")
    settings = project / ".wave" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"language": "Klingon"}))
    os.utime(settings, (1e9 + 10, 2e9))
    await service.run_turn("hi again")
    await service.destroy()
    systems = [dynamic_block(r.body) for r in model_server.requests]
    assert "Klingon" not in systems[0]
    assert "Klingon" in systems[1]


async def test_corrupt_settings_keep_last_valid_values_and_report_one_line(
    make_service, model_server: ModelServer, project: Path
) -> None:
    settings = project / ".wave" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"language": "Dutch"}))
    service: AgentService = make_service()
    notices: list[str] = []
    service.subscribe(lambda e: notices.append(e.text) if isinstance(e, ev.Notice) else None)
    await service.run_turn("one")
    settings.write_text('{"language": "Dutch",,}')
    os.utime(settings, (1e9, 2e9))
    await service.run_turn("two")
    await service.destroy()
    assert "Dutch" in dynamic_block(model_server.requests[1].body)
    assert len(notices) == 1 and ".wave/settings.json" in notices[0] and "JSON" in notices[0]


async def test_permission_request_is_resolved_by_the_ui_future(
    make_service, model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(
        tool_call("Write", {"file_path": "a.txt", "content": "1"}),
        tool_call("Write", {"file_path": "b.txt", "content": "2"}),
        text("done"),
    )
    service: AgentService = make_service()
    answers = iter(["allow_once", "deny"])
    asked: list[str] = []

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PermissionRequested):
            asked.append(event.args["file_path"])
            event.future.set_result(next(answers))

    service.subscribe(on_event)
    await service.run_turn("write two files")
    await service.destroy()
    assert asked == ["a.txt", "b.txt"]
    assert (project / "a.txt").exists() and not (project / "b.txt").exists()
    assert "denied by the user" in model_server.requests[2].body["messages"][-1]["content"]


async def test_allow_for_session_is_remembered(
    make_service, model_server: ModelServer, project: Path
) -> None:
    model_server.enqueue(
        tool_call("Bash", {"command": "touch x1"}),
        tool_call("Bash", {"command": "touch x1"}),
        text("done"),
    )
    service: AgentService = make_service()
    asked: list[str] = []

    def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.PermissionRequested):
            asked.append(event.args["command"])
            event.future.set_result("allow_session")

    service.subscribe(on_event)
    await service.run_turn("go")
    await service.destroy()
    assert asked == ["touch x1"]


async def test_destroyed_service_refuses_new_turns(make_service) -> None:
    service: AgentService = make_service()
    await service.destroy()
    await service.destroy()  # idempotent
    try:
        await service.run_turn("x")
    except RuntimeError as exc:
        assert "destroyed" in str(exc)
    else:
        raise AssertionError("run_turn after destroy must raise")


@pytest.mark.req("AC7")
async def test_invalid_tool_arguments_and_unknown_tools_go_back_to_the_model(
    make_service, model_server: ModelServer
) -> None:
    """AC7: invalid tool arguments and unknown tools go back to the model."""
    model_server.enqueue(tool_call("Nope", {}), text("ok"))
    service: AgentService = make_service()
    await service.run_turn("x")
    await service.destroy()
    assert "Unknown tool 'Nope'" in model_server.requests[1].body["messages"][-1]["content"]


async def test_clear_starts_a_new_empty_session(make_service, model_server: ModelServer) -> None:
    service: AgentService = make_service()
    await service.run_turn("remember this conversation")
    first = service.session_id
    result = await service.run_turn("/clear")
    assert result.status == "completed"
    assert service.session_id != first and service.messages == []
    await service.run_turn("fresh start")
    contents = [m.get("content") for m in model_server.requests[-1].body["messages"][1:]]
    assert contents == ["fresh start"]
    await service.destroy()


@pytest.mark.req("CP5")
async def test_escape_during_compaction_cancels_it_cleanly(
    make_service, model_server: ModelServer, project: Path
) -> None:
    """CP5: Issue 9: Esc cancels a compaction; the conversation and session are untouched."""
    model_server.enqueue(text("first answer"), when=lambda b: b["model"] != "fast")
    model_server.enqueue(text("summary " * 200, delay=0.02), when=lambda b: b["model"] == "fast")
    service: AgentService = make_service(environ={"WAVE_FAST_MODEL": "fast"})
    await service.run_turn("hello")
    before = (service.session_id, list(service.messages))
    busy: list[bool] = []
    service.subscribe(
        lambda e: (
            busy.append(e.running)
            if isinstance(e, ev.BackgroundChanged) and e.kind == "compaction"
            else None
        )
    )
    turn = asyncio.create_task(service.run_turn("/compact"))
    while not busy:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    service.abort()
    result = await turn
    assert result.status == "aborted"
    assert (service.session_id, service.messages) == before
    assert busy == [True, False] and not service.compacting
    await service.destroy()


async def test_transcript_keeps_messages_containing_unicode_line_separators(
    make_service, model_server: ModelServer
) -> None:
    """U+2028 inside a message must not split it on reload (it is valid inside a JSON line)."""
    model_server.enqueue(text("first\u2028second\u2029third\x85end"))
    service: AgentService = make_service()
    await service.run_turn("a\u2028b")
    await service.destroy()
    reloaded = service.transcript.load(warn=lambda w: (_ for _ in ()).throw(AssertionError(w)))
    assert [m.content for m in reloaded] == ["a\u2028b", "first\u2028second\u2029third\x85end"]


@pytest.mark.req("AC7")
async def test_odd_paths_become_tool_errors_not_a_crashed_turn(
    make_service, model_server: ModelServer, project: Path
) -> None:
    """AC7: A NUL byte or a symlink loop in a path: the model is told, the turn completes."""
    os.symlink(project / "loop", project / "loop")
    model_server.enqueue(
        tool_call("Read", {"file_path": "bad\x00name"}),
        tool_call("Read", {"file_path": "loop/x"}),
        text("done"),
    )
    service: AgentService = make_service()
    result = await service.run_turn("x")
    await service.destroy()
    assert result.status == "completed"
    assert "failed" in model_server.requests[1].body["messages"][-1]["content"]
    assert "failed" in model_server.requests[2].body["messages"][-1]["content"]


@pytest.mark.req("CV4")
async def test_an_unexpected_failure_ends_the_turn_and_the_queue_goes_on(
    make_service, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review: any exception ends the turn with an error event; busy is cleared; queue drains."""
    service: AgentService = make_service()
    calls = {"n": 0}
    original = service.runner.build_request

    def flaky(tools=None) -> dict:
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyError("boom")
        return original(tools)

    monkeypatch.setattr(service.runner, "build_request", flaky)
    seen: list[ev.AgentEvent] = []
    service.subscribe(seen.append)
    await service.send("first")
    await service.send("second")
    await service.wait_idle()
    await service.destroy()
    errors = [e.message for e in seen if isinstance(e, ev.ErrorOccurred)]
    assert errors and "KeyError" in errors[0]
    assert [e.busy for e in seen if isinstance(e, ev.BusyChanged)] == [True, False, True, False]
    # CV4: the prompt nothing answered is taken back (to the input), never sent with the next
    assert [e.text for e in seen if isinstance(e, ev.PromptFailed)] == ["first"]
    assert [m.content for m in service.messages if m.role == "user"] == ["second"]


@pytest.mark.req("AC8")
async def test_abort_finishes_the_open_tool_blocks(make_service, model_server: ModelServer) -> None:
    """AC8: Review: the UI gets ToolFinished for a call cut off by Esc (no block stays "running")."""
    model_server.enqueue(tool_call("Bash", {"command": "sleep 30"}))
    service: AgentService = make_service(permission_mode="bypassPermissions")
    started = asyncio.Event()
    finished: list[ev.ToolFinished] = []

    def on_event(e: ev.AgentEvent) -> None:
        if isinstance(e, ev.ToolStarted):
            started.set()
        if isinstance(e, ev.ToolFinished):
            finished.append(e)

    service.subscribe(on_event)
    turn = asyncio.create_task(service.run_turn("sleep"))
    await asyncio.wait_for(started.wait(), 10)
    service.abort()
    await asyncio.wait_for(turn, 10)
    await service.destroy()
    assert [f.summary for f in finished] == ["interrupted"] and finished[0].is_error
