"""Builds an AgentService with every feature hook plugged in (one place for the wiring)."""

from __future__ import annotations

from wave_tui.agent.service import AgentOptions, AgentService


def create_service(options: AgentOptions) -> AgentService:
    service = AgentService(options)
    return service
