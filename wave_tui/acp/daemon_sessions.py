"""`session/load` with a `wave daemon` session's id (DM2): the client attaches to that session.

The daemon's session is looked for first (a running daemon only: loading never starts one);
otherwise the id is a saved session of the project, as before. The conversation is replayed,
`session/prompt` sends to the daemon and streams its turn, a question of the daemon session is
`session/request_permission` (allow or reject, once), `session/cancel` aborts the daemon's turn,
and the end of the connection detaches: the session goes on in the daemon.
"""

from __future__ import annotations

import contextlib
from typing import Any

from acp import schema

from wave_tui.acp.mapping import (
    prompt_text,
    stream_update,
    tool_kind,
    tool_title,
)
from wave_tui.acp.permission import ALLOW_ONCE, REJECT_ONCE, REJECTED
from wave_tui.acp.replay import replay_updates
from wave_tui.sdk.attached import AttachedAgent, AttachError
from wave_tui.sdk.events import (
    TurnEnd,
)

_OPTIONS = [
    schema.PermissionOption(option_id=ALLOW_ONCE, name="Allow", kind="allow_once"),
    schema.PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"),
]


# req: DM2
class DaemonSessions:
    """The daemon sessions this ACP connection attached, by their id."""

    def __init__(self) -> None:
        self._attached: dict[str, AttachedAgent] = {}
        self._cancelled: set[str] = set()

    def has(self, session_id: str) -> bool:
        return session_id in self._attached

    async def load(self, conn: Any, cwd: str, session_id: str) -> bool:
        """Attach and replay the conversation; False when no running daemon has the id."""

        async def ask(name: str, args: dict[str, Any]) -> dict[str, Any]:
            response = await conn.request_permission(
                session_id=session_id,
                tool_call=schema.ToolCallUpdate(
                    tool_call_id=f"permission-{name}",
                    title=tool_title(name, args),
                    kind=tool_kind(name),
                    status="pending",
                    raw_input=args,
                ),
                options=_OPTIONS,
            )
            outcome = response.outcome
            chosen = outcome.option_id if isinstance(outcome, schema.AllowedOutcome) else None
            if chosen == ALLOW_ONCE:
                return {"behavior": "allow"}
            return {"behavior": "deny", "message": REJECTED}

        try:
            agent = await AttachedAgent.attach(session_id, workdir=cwd, can_use_tool=ask)
        except AttachError:
            return False
        self._attached[session_id] = agent
        for update in replay_updates(agent.messages, []):
            await conn.session_update(session_id=session_id, update=update)
        return True

    async def prompt(self, conn: Any, session_id: str, prompt: list[Any]) -> schema.PromptResponse:
        agent = self._attached[session_id]
        self._cancelled.discard(session_id)
        stop: Any = "end_turn"
        async for event in agent.stream(prompt_text(prompt)):
            update = stream_update(event)
            if update is not None:
                await conn.session_update(session_id=session_id, update=update)
            if isinstance(event, TurnEnd) and (
                event.status == "aborted" or session_id in self._cancelled
            ):
                stop = "cancelled"
        return schema.PromptResponse(stop_reason=stop)

    def cancel(self, session_id: str) -> None:
        agent = self._attached.get(session_id)
        if agent is not None:
            self._cancelled.add(session_id)
            agent.abort()

    async def close(self) -> None:
        """Detach from every session: they go on in the daemon."""
        for agent in list(self._attached.values()):
            with contextlib.suppress(Exception):
                await agent.detach()
        self._attached.clear()
