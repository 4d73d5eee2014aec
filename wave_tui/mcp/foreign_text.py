"""Text an MCP server wrote, made unable to pose as wave's own markup for the model.

Wave tells the model that `<system-reminder>` blocks come from wave itself, reports finished
background work as `<task-notification>` and wraps an attached resource in `<mcp-resource>`. A
server's prompt or resource holding such a tag would speak with wave's voice (or close the
wrapper and go on as the user), so its `<` of those tags becomes `&lt;`: still readable, never
wave's.
"""

from __future__ import annotations

import re

_WAVE_TAGS = re.compile(r"<(?=/?\s*(?:system-reminder|task-notification|mcp-resource)\b)", re.I)


def defang(text: str) -> str:
    """`text` with every opening `<` of wave's own tags escaped."""
    return _WAVE_TAGS.sub("&lt;", text)
