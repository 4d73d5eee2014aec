"""The SDK's `on_elicitation(server, message, schema)` option: an MCP server's form answered by
the program (MA3). It returns `{"action": "accept", "content": {...}}`, `{"action":
"decline"}` or `{"action": "cancel"}` (or an awaitable of one); without it, or when it raises or
answers something else, the form is declined. On accept, fields it leaves out get the schema's
defaults (the mcp layer fills them in)."""

from __future__ import annotations

import asyncio
import inspect
import sys
from collections.abc import Callable
from typing import Any

from wave_tui.agent import events as ev

_ACTIONS = ("accept", "decline", "cancel")


# req: MA3
async def answer_elicitation(
    callback: Callable[..., Any] | None, event: ev.ElicitationRequested
) -> None:
    answer = ev.ElicitationAnswer("decline")
    if callback is not None:
        try:
            result = callback(event.server, event.message, dict(event.schema))
            if inspect.isawaitable(result):
                result = await result
            answer = _answer(result)
        except Exception as exc:  # the program's callback: declined, said once
            print(
                f"wave: on_elicitation raised {type(exc).__name__}: {exc}; declined",
                file=sys.stderr,
                flush=True,
            )
    if not event.future.done():
        event.future.set_result(answer)


def _answer(result: object) -> ev.ElicitationAnswer:
    if not isinstance(result, dict) or result.get("action") not in _ACTIONS:
        raise ValueError(f"on_elicitation must return {{'action': 'accept'|…}}, not {result!r}")
    content = result.get("content")
    if result["action"] != "accept" or not isinstance(content, dict):
        return ev.ElicitationAnswer(result["action"], None if content is None else {})
    return ev.ElicitationAnswer("accept", dict(content))


def start(
    callback: Callable[..., Any] | None,
    event: ev.ElicitationRequested,
    tasks: set[asyncio.Task[None]],
) -> None:
    """Answer `event` in a task of the running loop (kept in `tasks` until it ends)."""
    task = asyncio.get_running_loop().create_task(answer_elicitation(callback, event))
    tasks.add(task)
    task.add_done_callback(tasks.discard)
