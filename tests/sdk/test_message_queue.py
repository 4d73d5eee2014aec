"""`send_message` while a turn runs waits in the queue (004 §3), and the queue API: in-process
against the scripted server, a custom tool that holds the first turn until the test lets go."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text, tool_call
from wave_tui import Agent, QueuedMessage, tool
from wave_tui.llm.types import Message


async def until(condition: Callable[[], bool]) -> None:
    """Wait until `condition` holds (each check yields to the loop; the test's timeout ends
    a wait that never ends)."""
    while not condition():
        await asyncio.sleep(0.01)


async def make_agent(
    project: Path, server: ModelServer, release: asyncio.Event, **options: object
) -> Agent:
    @tool
    async def slow() -> str:
        """Waits until the test lets go."""
        await release.wait()
        return "slow done"

    return await Agent.create(
        workdir=project,
        base_url=server.base_url,
        api_key="test-key",
        model="test-model",
        custom_tools=[slow],
        allowed_tools=["slow"],
        **options,
    )


def conversation(messages: list[Message]) -> list[tuple[str, str]]:
    return [
        (m.role, m.content if m.role != "assistant" or not m.tool_calls else "<call>")
        for m in messages
        if not m.is_meta
    ]


@pytest.fixture(autouse=True)
def no_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    # The extraction fork would take scripted replies meant for the next turn.
    monkeypatch.setenv("WAVE_DISABLE_AUTO_MEMORY", "1")


@pytest.mark.req("SX1")
async def test_a_message_sent_during_a_turn_waits_for_it(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(tool_call("slow", {}), text("first answer"), text("second answer"))
    release = asyncio.Event()
    seen: list[list[str]] = []
    agent = await make_agent(
        project,
        model_server,
        release,
        callbacks={"on_queued_messages_change": lambda q: seen.append([m.content for m in q])},
    )
    try:
        first = asyncio.ensure_future(agent.send_message("first"))
        await until(lambda: len(model_server.requests) == 1)
        second = asyncio.ensure_future(agent.send_message("second"))
        # Before the fix the second message started a turn of its own at once.
        await until(lambda: bool(agent.queued_messages) or len(model_server.requests) > 1)
        release.set()
        one, two = await asyncio.gather(first, second)
        assert (one.status, one.text) == ("completed", "first answer")
        assert (two.status, two.text) == ("completed", "second answer")
        assert ["second"] in seen and seen[-1] == []
        assert conversation(agent.messages) == [
            ("user", "first"),
            ("assistant", "<call>"),
            ("tool", "slow done"),
            ("assistant", "first answer"),
            ("user", "second"),
            ("assistant", "second answer"),
        ]
        # The second request came after the first turn's tool result, never between its call
        # and the result.
        last = model_server.requests[-1].body["messages"]
        contents = [m.get("content") for m in last]
        assert contents.index("slow done") < contents.index("second")
    finally:
        release.set()
        await agent.destroy()


@pytest.mark.req("SX1")
async def test_the_queue_api_removes_updates_and_recalls(
    project: Path, model_server: ModelServer
) -> None:
    model_server.enqueue(tool_call("slow", {}), text("first answer"), text("edited answer"))
    release = asyncio.Event()
    agent = await make_agent(project, model_server, release)
    try:
        first = asyncio.ensure_future(agent.send_message("first"))
        await until(lambda: len(model_server.requests) == 1)
        waiting = [asyncio.ensure_future(agent.send_message(t)) for t in ("a", "b", "c")]
        await until(lambda: len(agent.queued_messages) == 3)
        a, b, c = agent.queued_messages
        assert isinstance(a, QueuedMessage) and (a.content, a.type) == ("a", "message")
        assert agent.remove_queued_message(0) is True
        assert agent.remove_queued_message(5) is False
        assert agent.remove_queued_message_by_id(c.id) is True
        assert agent.remove_queued_message_by_id(c.id) is False
        assert agent.update_queued_message_by_id(b.id, content="b edited") is True
        assert agent.update_queued_message_by_id("no-such-id", content="x") is False
        assert [(m.id, m.content) for m in agent.queued_messages] == [(b.id, "b edited")]
        recalled = agent.recall_queued_message()
        assert recalled is not None and recalled.content == "c"  # the one removed last
        release.set()
        results = await asyncio.gather(first, *waiting)
        assert [(r.status, r.text) for r in results] == [
            ("completed", "first answer"),
            ("aborted", ""),  # removed
            ("completed", "edited answer"),
            ("aborted", ""),  # removed
        ]
        assert ("user", "b edited") in conversation(agent.messages)
        assert ("user", "a") not in conversation(agent.messages)
        assert len(model_server.requests) == 3
    finally:
        release.set()
        await agent.destroy()
