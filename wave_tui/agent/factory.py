"""Builds an AgentService with every feature hook plugged in (one place for the wiring)."""

from __future__ import annotations

from wave_tui.agent.injection_hook import MemoryInjectionHook
from wave_tui.agent.service import AgentOptions, AgentService, Approver


def create_service(options: AgentOptions, *, approver: Approver | None = None) -> AgentService:
    service = AgentService(options, approver=approver)
    service.add_hook(MemoryInjectionHook(service.paths, service.notify))
    return service
