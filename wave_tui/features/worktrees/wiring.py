"""Plugs the session's worktree into a service: one call from the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wave_tui.agent.extensions import ContextSource, StatusSource, ToolProvider
from wave_tui.features.worktrees.session import Making, WorktreeSession

if TYPE_CHECKING:
    from wave_tui.agent.service import AgentService


def install_worktrees(service: AgentService) -> WorktreeSession:
    """The worktree tools, status and start-in (`wave --worktree NAME`) of one session."""
    new = service.options.new_worktree
    making: Making | None = None if new is None else ("new" if new else "existing")
    worktrees = WorktreeSession(service, service.options.worktree, making)
    service.add_extension(worktrees, ContextSource, ToolProvider, StatusSource)
    return worktrees
