"""`Extensions.add` files each extension in the slot of every protocol it implements."""

from __future__ import annotations

from pathlib import Path

import pytest

import wave_tui.agent.extensions as ext
from tests.model_server import ModelServer
from wave_tui.agent.events import AgentEvent
from wave_tui.agent.service import AgentOptions
from wave_tui.session.factory import create_service

# Every slot with its protocol, as the loop's parts read them.
SLOTS: dict[str, type] = {
    "context_sources": ext.ContextSource,
    "tool_providers": ext.ToolProvider,
    "guards": ext.ToolGuard,
    "deciders": ext.ToolDecider,
    "locks": ext.ToolLock,
    "preparers": ext.ToolPreparer,
    "tool_observers": ext.ToolObserver,
    "turn_observers": ext.TurnObserver,
    "session_observers": ext.SessionObserver,
    "status_sources": ext.StatusSource,
    "compaction_hooks": ext.CompactionHooks,
    "permission_hooks": ext.PermissionRequestHooks,
    "skill_sources": ext.InvokedSkills,
    "running_work_sources": ext.RunningWork,
    "request_watchers": ext.RequestWatcher,
    "tool_watchers": ext.ToolWatcher,
    "event_observers": ext.EventObserver,
    "prompt_attachments": ext.PromptAttachments,
    "workdir_observers": ext.WorkdirObserver,
}


class _Events:
    def __init__(self) -> None:
        self.seen: list[AgentEvent] = []

    def on_event(self, event: AgentEvent) -> None:
        self.seen.append(event)


class _HalfTurnObserver:
    """Has one of TurnObserver's two methods: that is not a TurnObserver."""

    async def on_turn_start(self, prompt: str) -> ext.TurnStart:
        return ext.TurnStart()


def test_an_extension_lands_in_the_slots_of_the_protocols_it_implements() -> None:
    registry = ext.Extensions()
    assert set(vars(registry)) - {"all"} == set(SLOTS)  # the table above is every slot
    events = _Events()
    registry.add(events)
    assert registry.event_observers == [events] and registry.all == [events]
    assert [name for name in SLOTS if getattr(registry, name)] == ["event_observers"]


def test_a_partial_protocol_is_not_filed_and_nothing_at_all_is_refused() -> None:
    registry = ext.Extensions()
    with pytest.raises(TypeError, match="_HalfTurnObserver implements no extension protocol"):
        registry.add(_HalfTurnObserver())  # type: ignore[arg-type]
    assert registry.turn_observers == [] and registry.all == []


def test_a_method_set_to_none_does_not_count() -> None:
    """As a runtime protocol check: a member that is None is not implemented."""
    events = _Events()
    events.on_event = None  # type: ignore[assignment,method-assign]
    with pytest.raises(TypeError):
        ext.Extensions().add(events)


async def test_every_wired_extension_is_filed_as_isinstance_would(
    model_server: ModelServer, project: Path
) -> None:
    """The real factory's extensions, each in exactly the slots `isinstance` puts it in."""
    environ = {"WAVE_BASE_URL": model_server.base_url, "WAVE_API_KEY": "k", "WAVE_MODEL": "m"}
    service = create_service(AgentOptions(workdir=project, environ=environ, headless=True))
    try:
        registry = service.extensions
        assert len(registry.all) > 10
        for extension in registry.all:
            filed = {name for name in SLOTS if any(e is extension for e in getattr(registry, name))}
            expected = {name for name, proto in SLOTS.items() if isinstance(extension, proto)}
            assert filed == expected, type(extension).__name__
    finally:
        await service.destroy()
