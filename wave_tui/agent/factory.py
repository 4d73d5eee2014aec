"""Builds an AgentService with every feature hook plugged in (one place for the wiring)."""

from __future__ import annotations

from wave_tui.agent.auto_memory_hook import AutoMemoryHook
from wave_tui.agent.extensibility import Extensibility, install_extensibility
from wave_tui.agent.extraction import ExtractionHook, last_extraction_time
from wave_tui.agent.freshness_hook import FreshnessHook
from wave_tui.agent.injection_hook import MemoryInjectionHook
from wave_tui.agent.service import AgentOptions, AgentService, Approver


def create_service(options: AgentOptions, *, approver: Approver | None = None) -> AgentService:
    return create_service_with_extensions(options, approver=approver)[0]


def create_service_with_extensions(
    options: AgentOptions, *, approver: Approver | None = None
) -> tuple[AgentService, Extensibility]:
    service = AgentService(options, approver=approver)
    service.add_hook(MemoryInjectionHook(service.paths, service.notify))
    auto = AutoMemoryHook(
        service.paths,
        safe_zones=service.safe_zones,
        read_state=lambda: service.read_state,
        clock=service.clock,
        notify=service.notify,
        last_extraction=lambda: last_extraction_time(service.paths.project_dir, service.session_id),
    )
    service.add_hook(auto)
    service.add_hook(ExtractionHook(service, auto))
    service.add_hook(
        FreshnessHook(
            lambda: service.read_state,
            service.paths.project_root,
            service.paths.home,
            service.notify,
        )
    )
    extras = install_extensibility(service)  # user hooks, custom commands, skills (issue 16)
    return service, extras
