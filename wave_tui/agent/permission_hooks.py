"""PermissionRequest hooks (HK2): asked before the user is, each may deny the call.

`with_permission_hooks(ask, extensions, notify)` wraps the function that asks the user: every
extension with `run_permission_request` (the user hooks) runs first; a reason from one denies
the call without asking, and the user sees that line. `wave -p` asks nobody, so it runs none.

A subagent's tool calls ask through the same asker; the running subagent is a context variable,
set for the subagent's own task (`running_subagent`), so the question it raises names it
(`asking_agent`) without the asker's signature changing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.events import AskingAgent
from wave_tui.agent.extensions import Extensions, ToolCallInfo

Ask = Callable[[str, dict[str, Any], str], Awaitable[ev.PermissionReply]]


def with_permission_hooks(
    ask: Ask, extensions: Extensions, notify: Callable[[str, str], None]
) -> Ask:
    async def asking(tool: str, args: dict[str, Any], reason: str) -> ev.PermissionReply:
        call = ToolCallInfo("", tool, args)
        for extension in extensions.permission_hooks:
            denied = await extension.run_permission_request(call)  # req: HK2
            if denied is not None:
                notify("blocked", f"PermissionRequest hook denied {tool}: {denied}")
                return "deny"
        return await ask(tool, args, reason)

    return asking


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
