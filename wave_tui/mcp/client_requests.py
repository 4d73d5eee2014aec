"""The SDK callbacks that answer one server's requests to wave through the session's host.

`ClientSession` advertises `roots`, `sampling` and `elicitation` exactly when it is given these
callbacks, so a connection without a host advertises nothing (as before). Log messages are kept
(the last `LOG_KEEP` per server) for `/mcp`.

A server samples only while one of wave's own requests to it is open (a tool call, a resource
read, a prompt): those come from the main agent alone (the extraction fork cannot call a server),
so a sampling of the server's own accord — while the fork runs, or while nobody is there to see
what it is for — is refused before anyone is asked or any model is.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp import types
from mcp.shared.context import RequestContext

from wave_tui.mcp.client_host import (
    ClientHost,
    ElicitationForm,
    SamplingAsk,
    log_text,
    with_defaults,
)

LOG_KEEP = 50  # log lines kept per server for `/mcp`
# A form the user could never read through is declined without asking: elicitation is for a
# few flat fields (the spec's restricted schema), not a wall of them.
ELICIT_MAX_FIELDS = 50
ELICIT_MAX_SCHEMA_CHARS = 20_000
ELICIT_MESSAGE_MAX_CHARS = 2_000


class ClientRequests:
    def __init__(self, server: str, host: ClientHost) -> None:
        self.server = server
        self.host = host
        self.logs: deque[str] = deque(maxlen=LOG_KEEP)
        self._open_requests = 0  # wave's requests to the server now waiting for their answer

    @contextmanager
    def open_request(self) -> Iterator[None]:
        """Around one of wave's requests to the server: the server may sample meanwhile."""
        self._open_requests += 1
        try:
            yield
        finally:
            self._open_requests -= 1

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
        too_wide = _too_wide()
        for path in dict.fromkeys(p.resolve() for p in self.host.roots()):
            if path in too_wide:  # wave started in HOME or `/`: no folder is the project's
                continue
            uri: Any = path.as_uri()
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
        problem = _unaskable(schema)
        if problem is not None:
            self.logs.append(f"[warning wave] elicitation declined unasked: {problem}")
            return types.ElicitResult(action="decline")
        message = params.message[:ELICIT_MESSAGE_MAX_CHARS]
        reply = await self.host.elicit(ElicitationForm(self.server, message, schema))
        reply = with_defaults(reply, schema)
        return types.ElicitResult(action=reply.action, content=reply.content)

    # req: MA2
    async def sample(
        self, context: RequestContext[Any, Any], params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        if not self._open_requests:
            why = "sampling refused: asked outside any request of wave's to this server"
            self.logs.append(f"[warning wave] {why}")
            return types.ErrorData(code=types.INVALID_REQUEST, message=why)
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
        data = log_text(params.data)
        who = f" {params.logger}" if params.logger else ""
        self.logs.append(f"[{params.level}{who}] {data}"[:500])


def _unaskable(schema: dict[str, Any]) -> str | None:
    """Why a requested schema is not shown to the user, None when it may be."""
    properties = schema.get("properties")
    if properties is not None and not isinstance(properties, dict):
        return "its properties are not an object"
    if len(properties or {}) > ELICIT_MAX_FIELDS:
        return f"{len(properties or {}):,} fields (at most {ELICIT_MAX_FIELDS})"
    size = len(json.dumps(schema, default=str))
    if size > ELICIT_MAX_SCHEMA_CHARS:
        return f"a schema of {size:,} characters (at most {ELICIT_MAX_SCHEMA_CHARS:,})"
    return None


def _too_wide() -> set[Path]:
    """Folders never offered as roots: a server would take all of the user's files for the
    project's."""
    return {Path.home().resolve(), Path("/")}


def _text(content: Any) -> str:
    parts = content if isinstance(content, list) else [content]
    return "\n".join(
        p.text if isinstance(p, types.TextContent) else f"[{getattr(p, 'type', 'content')}]"
        for p in parts
    )
