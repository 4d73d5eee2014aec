"""What an attached client (`wave --attach ID`, ACP, the SDK) hears of a daemon session: the
session's events as wire objects, one a line, and the daemon's own news (state, approvals).

Only the events a client shows travel; an event's `Message` and `Usage` go as their transcript
form (camelCase), so the client rebuilds the same event it would have had in-process.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.llm.types import Message, Usage

# The events a client shows of the turn the daemon runs (asks are the daemon's own news).
STREAMED: tuple[type[Any], ...] = (
    *ev.TURN_EVENTS,
    ev.ToolProgress,
    ev.UsageUpdated,
    ev.ShellStarted,
    ev.ShellOutput,
    ev.ShellFinished,
)
_BY_NAME: dict[str, type[Any]] = {kind.__name__: kind for kind in STREAMED}


def encode_event(event: ev.AgentEvent) -> dict[str, Any] | None:
    """The event as a wire object; None for one a client does not get."""
    if not isinstance(event, STREAMED):
        return None
    fields: dict[str, Any] = {}
    for one in dataclasses.fields(event):
        value = getattr(event, one.name)
        if isinstance(value, Message | Usage):
            value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        fields[one.name] = value
    return {"event": type(event).__name__, "fields": fields}


def decode_event(wire: dict[str, Any]) -> ev.AgentEvent | None:
    """The event a wire object carries; None for one this client does not know."""
    kind = _BY_NAME.get(str(wire.get("event")))
    fields = wire.get("fields")
    if kind is None or not isinstance(fields, dict):
        return None
    values = dict(fields)
    if isinstance(values.get("message"), dict):
        values["message"] = Message.model_validate(values["message"])
    if isinstance(values.get("usage"), dict):
        values["usage"] = Usage.model_validate(values["usage"])
    try:
        event: ev.AgentEvent = kind(**values)
    except TypeError:
        return None  # a daemon of another version: what this client cannot rebuild is skipped
    return event


def encode_message(message: Message) -> dict[str, Any]:
    return message.model_dump(mode="json", by_alias=True, exclude_none=True)


def decode_messages(raw: object) -> list[Message]:
    if not isinstance(raw, list):
        return []
    return [Message.model_validate(one) for one in raw if isinstance(one, dict)]
