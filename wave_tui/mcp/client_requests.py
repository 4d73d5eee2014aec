"""The SDK callbacks that answer one server's requests to wave through the session's host.

`ClientSession` advertises `roots`, `sampling` and `elicitation` exactly when it is given these
callbacks, so a connection without a host advertises nothing (as before). Log messages are kept
(the last `LOG_KEEP` per server) for `/mcp`.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from mcp import types
from mcp.shared.context import RequestContext

from wave_tui.mcp.client_host import (
    ClientHost,
    ElicitationForm,
    SamplingAsk,
    with_defaults,
)

LOG_KEEP = 50  # log lines kept per server for `/mcp`


class ClientRequests:
    def __init__(self, server: str, host: ClientHost) -> None:
        self.server = server
        self.host = host
        self.logs: deque[str] = deque(maxlen=LOG_KEEP)

    def session_kwargs(self) -> dict[str, Any]:
        return {
            "list_roots_callback": self.list_roots,
            "elicitation_callback": self.elicit,
            "sampling_callback": self.sample,
            "logging_callback": self.log,
        }

    # req: MA1
    async def list_roots(self, context: RequestContext[Any, Any]) -> types.ListRootsResult:
        roots = []
        for path in dict.fromkeys(self.host.roots()):  # the worktree may be the root itself
            uri: Any = path.resolve().as_uri()
            roots.append(types.Root(uri=uri, name=path.name))
        return types.ListRootsResult(roots=roots)

    # req: MA3
    async def elicit(
        self, context: RequestContext[Any, Any], params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        if not isinstance(params, types.ElicitRequestFormParams):
            # URL mode would send the user to a page wave cannot vouch for: declined.
            return types.ElicitResult(action="decline")
        schema = dict(params.requestedSchema)
        reply = await self.host.elicit(ElicitationForm(self.server, params.message, schema))
        reply = with_defaults(reply, schema)
        return types.ElicitResult(action=reply.action, content=reply.content)

    # req: MA2
    async def sample(
        self, context: RequestContext[Any, Any], params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        messages = tuple((m.role, _text(m.content)) for m in params.messages)
        ask = SamplingAsk(self.server, messages, params.systemPrompt, params.maxTokens)
        reply = await self.host.sample(ask)
        if reply.error is not None:
            return types.ErrorData(code=types.INVALID_REQUEST, message=reply.error)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=reply.text),
            model=reply.model,
            stopReason="endTurn",
        )

    # req: MA4
    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        data = params.data if isinstance(params.data, str) else repr(params.data)
        who = f" {params.logger}" if params.logger else ""
        self.logs.append(f"[{params.level}{who}] {data}"[:500])


def _text(content: Any) -> str:
    parts = content if isinstance(content, list) else [content]
    return "\n".join(
        p.text if isinstance(p, types.TextContent) else f"[{getattr(p, 'type', 'content')}]"
        for p in parts
    )
