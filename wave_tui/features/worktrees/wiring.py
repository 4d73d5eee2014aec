"""Plugs the session's worktree into a service: one call from the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wave_tui.features.worktrees.session import WorktreeSession

if TYPE_CHECKING:
    from wave_tui.agent.service import AgentService


def install_worktrees(service: AgentService) -> WorktreeSession:
    """The worktree tools, status and start-in (`wave --worktree NAME`) of one session."""
    worktrees = WorktreeSession(service, start_in=service.options.worktree)
    service.add_extension(worktrees)
    return worktrees
