"""Plugs the checkpoint hook into an agent: Write/Edit are checkpointed from the first turn."""

from __future__ import annotations

from wave_tui.agent.service import AgentService
from wave_tui.features.rewind.hook import CheckpointHook


def install_checkpoints(service: AgentService) -> CheckpointHook:
    hook = CheckpointHook(
        service.paths,
        session_id=lambda: service.session_id,
        messages=lambda: service.messages,
        model=lambda: service.model,
        notify=service.notify,
    )
    service.add_extension(hook)
    return hook
