"""Switching the service's conversation: resume, clear, and what every switch resets (UX15)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tests.model_server import ModelServer, text
from wave_tui.agent.extensions import SessionObserver
from wave_tui.agent.service import AgentService
from wave_tui.config.settings import EffectiveSettings
from wave_tui.llm.types import Message


class RestoreLog:
    """A SessionObserver that keeps the user prompts of every restored conversation."""

    def __init__(self) -> None:
        self.restored: list[list[str]] = []

    def on_settings(self, settings: EffectiveSettings) -> None:
        return None

    def on_messages_restored(self, messages: list[Message]) -> None:
        self.restored.append([m.content for m in messages if m.role == "user"])

    async def aclose(self) -> None:
        return None


def prompts(service: AgentService) -> list[str]:
    return [m.content for m in service.messages if m.role == "user" and not m.is_meta]


@pytest.mark.req("UX15")
async def test_ux15_resume_switches_the_service_to_another_conversation(
    make_service, model_server: ModelServer
) -> None:
    model_server.enqueue(text("first answer"), text("second answer"))
    service: AgentService = make_service()
    await service.run_turn("first prompt")
    first = service.session_id
    service.clear()
    await service.run_turn("second prompt")
    log = RestoreLog()
    service.add_extension(log, SessionObserver)
    service.breaker.record_failure()
    service.resume(first)
    assert service.session_id == first
    assert prompts(service) == ["first prompt"]
    assert log.restored and "first prompt" in log.restored[-1]
    assert service.last_request is None and service.last_reply is None  # nothing re-extracted
    assert service.breaker.failures == 0


@pytest.mark.req("UX15")
async def test_ux15_resume_refuses_an_unknown_id_and_a_running_turn(
    make_service, model_server: ModelServer
) -> None:
    held = threading.Event()  # the reply stops after its first chunk: the turn is running
    model_server.enqueue(text("slow " * 50, hold=held))
    service: AgentService = make_service()
    with pytest.raises(FileNotFoundError):
        service.resume("no-such-session")
    turn = asyncio.create_task(service.run_turn("talk"))
    while not service.busy:
        await asyncio.sleep(0.01)
    with pytest.raises(RuntimeError, match="wait for the turn"):
        service.resume(service.session_id)
    service.abort()
    try:
        assert (await turn).status == "aborted"
    finally:
        held.set()
