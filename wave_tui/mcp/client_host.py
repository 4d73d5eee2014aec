"""What a server may ask of wave, the client: roots, elicitation, sampling, progress, logs.

The mcp layer answers these requests through a `ClientHost` handed down by the session's
wiring (`features/mcp/wiring.py`): the layer below never imports the front ends that show a
form or ask for approval. Without a host nothing is advertised and every such request is
refused, as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, Protocol

from wave_tui.config.records import record

ElicitAction = Literal["accept", "decline", "cancel"]


@record
class ElicitationForm:
    """A server's `elicitation/create` (form mode): `schema` is its `requestedSchema`."""

    server: str
    message: str
    schema: dict[str, Any]


@record
class ElicitationReply:
    action: ElicitAction
    content: dict[str, Any] | None = None


@record
class SamplingAsk:
    """A server's `sampling/createMessage`, as text: (role, text) per message."""

    server: str
    messages: tuple[tuple[str, str], ...]
    system_prompt: str | None
    max_tokens: int


@record
class SamplingReply:
    """The model's text (and model name), or why there is none (`error`)."""

    text: str = ""
    model: str = ""
    error: str | None = None


class ClientHost(Protocol):
    """The session's side of the client features (one per session, shared by its servers)."""

    def roots(self) -> list[Path]:
        """The folders the servers may work in (the project root, the active worktree)."""
        ...

    async def elicit(self, form: ElicitationForm) -> ElicitationReply: ...

    async def sample(self, ask: SamplingAsk) -> SamplingReply: ...

    def progress(self, server: str, tool: str, text: str, call_id: str) -> None:
        """A long call's progress (`notifications/progress`), as one short line; `call_id` is
        the model's call it belongs to ("" when none)."""
        ...


# req: MA3
def schema_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """The `default` of each property of a requested schema (SEP-1034)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    return {
        name: spec["default"]
        for name, spec in properties.items()
        if isinstance(spec, dict) and "default" in spec
    }


# req: MA3
def with_defaults(reply: ElicitationReply, schema: dict[str, Any]) -> ElicitationReply:
    """An accepted reply with the schema's defaults for every field it left out."""
    if reply.action != "accept":
        return ElicitationReply(reply.action)
    return ElicitationReply("accept", {**schema_defaults(schema), **(reply.content or {})})


def progress_line(progress: float, total: float | None, message: str | None) -> str:
    """`3/10 — message` (or `3 — message` without a total)."""
    amount = f"{progress:g}/{total:g}" if total else f"{progress:g}"
    return f"{amount} — {message}" if message else amount


# req: MA4
def log_text(data: object) -> str:
    """A log message's `data` as one line: a string as it is; FastMCP's `{"msg": …, "extra":
    …}` (and any object with a string `message`) as its message, then the rest as JSON."""
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        key = next((k for k in ("msg", "message") if isinstance(data.get(k), str)), None)
        if key is not None:
            rest = {k: v for k, v in data.items() if k != key and v is not None}
            return str(data[key]) + (f" {_json(rest)}" if rest else "")
    return _json(data)


def _json(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, default=repr)
