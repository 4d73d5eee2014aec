"""PermissionRequest hooks (HK2): asked before the user is, each may deny the call.

`with_permission_hooks(ask, extensions, notify)` wraps the function that asks the user: every
extension with `run_permission_request` (the user hooks) runs first; a reason from one denies
the call without asking, and the user sees that line. `wave -p` asks nobody, so it runs none.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.extensions import Extensions, ToolCallInfo

Ask = Callable[[str, dict[str, Any], str], Awaitable[ev.PermissionChoice]]


def with_permission_hooks(
    ask: Ask, extensions: Extensions, notify: Callable[[str, str], None]
) -> Ask:
    async def asking(tool: str, args: dict[str, Any], reason: str) -> ev.PermissionChoice:
        call = ToolCallInfo("", tool, args)
        for extension in extensions.permission_hooks:
            denied = await extension.run_permission_request(call)  # req: HK2
            if denied is not None:
                notify("blocked", f"PermissionRequest hook denied {tool}: {denied}")
                return "deny"
        return await ask(tool, args, reason)

    return asking
