"""Messages waiting for the running turn: taken back, dropped, announced (UX19)."""

from __future__ import annotations

import asyncio

import pytest

from tests.model_server import ModelServer, text
from wave_tui.agent import events as ev
from wave_tui.session.facade import AgentSession


@pytest.mark.req("UX19")
async def test_ux19_queued_messages_are_taken_back_or_dropped_through_the_facade(
    make_service, model_server: ModelServer
) -> None:
    model_server.enqueue(text("slow " * 40, delay=0.05), text("after"))
    session = AgentSession(make_service())
    queues: list[tuple[str, ...]] = []
    statuses: list[tuple[str, ...]] = []

    def seen(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.QueueChanged):
            queues.append(event.queued)
        elif isinstance(event, ev.StatusChanged):
            statuses.append(event.status.queue)

    session.subscribe(seen)
    await session.send("first")
    while not session.status().busy:
        await asyncio.sleep(0.01)
    for prompt in ("second", "third", "fourth"):
        await session.send(prompt)
    assert session.unqueue_last() == "fourth"
    assert queues[-1] == ("second", "third") and statuses[-1] == ("second", "third")
    session.clear_queue()
    assert queues[-1] == () and statuses[-1] == ()
    announced = len(queues)
    assert session.unqueue_last() is None
    session.clear_queue()
    assert len(queues) == announced  # nothing waited: nothing announced
    await session.wait_idle()
    users = [m.content for m in session.messages() if m.role == "user"]
    await session.close()
    assert users == ["first"]
