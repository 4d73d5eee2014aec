"""`truncate_history(index)`: the conversation cut back to before one of the user's messages.

The transcript is rewritten (atomically) with `messages[:index]` and the session restored from
it, so the read state, the memory hooks and a later resume all see the shorter conversation.
"""

from __future__ import annotations

import asyncio

from wave_tui.agent.service import AgentService
from wave_tui.config.fileio import atomic_write_text


# req: SD3
async def truncate_history(service: AgentService, index: int) -> None:
    """Keep `messages[:index]`; `index` names a user message (not an isMeta one). Raises
    TypeError / ValueError for another index, RuntimeError while a turn runs."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"index must be an int, not {type(index).__name__}")
    messages = list(service.messages)
    if not 0 <= index < len(messages):
        raise ValueError(f"index {index} is out of range (0..{len(messages) - 1})")
    if messages[index].role != "user" or messages[index].is_meta:
        raise ValueError(f"messages[{index}] is not a user message")
    if service.busy:
        raise RuntimeError("wait for the turn to finish (or abort it) before truncating")
    kept = messages[:index]
    text = "".join(m.to_json_line() + "\n" for m in kept)
    await asyncio.to_thread(atomic_write_text, service.transcript.path, text)
    service.resume(service.session_id)
