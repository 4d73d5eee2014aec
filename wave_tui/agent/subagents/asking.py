"""Which subagent is running the current task: its permission questions say who asks.

A subagent's tool calls ask the user through the parent's asker (the same dialog, the same
hooks); the running subagent is a context variable, set for the subagent's own task, so the
question it raises names it without the asker's signature changing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from wave_tui.agent.events import AskingAgent

_RUNNING: ContextVar[AskingAgent | None] = ContextVar("wave_running_subagent", default=None)


def asking_agent() -> AskingAgent | None:
    """The subagent whose task this is; None in the main agent's."""
    return _RUNNING.get()


@contextmanager
def running_subagent(agent_type: str, description: str) -> Iterator[None]:
    """Within this block (and the tasks it starts), questions come from this subagent."""
    token = _RUNNING.set(AskingAgent(agent_type, description))
    try:
        yield
    finally:
        _RUNNING.reset(token)
