"""Plugs images into a service: `@img.png` attachments (one call from the factory)."""

from __future__ import annotations

from wave_tui.agent.extensions import PromptAttachments
from wave_tui.agent.service import AgentService
from wave_tui.features.images.attach import ImageAttachments


def install_images(service: AgentService) -> None:
    service.add_extension(
        ImageAttachments(service.paths.project_root, service.notify), PromptAttachments
    )
