"""Reading a server's resource and getting one of its prompts, as text for the model.

A resource is capped like a tool result (`results.MCP_RESULT_MAX_CHARS`), binary contents are
named, never inlined. A prompt's messages become the text of one user turn; an argument the
prompt does not declare, or a required one missing, is one line before anything is asked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from mcp import ClientSession, McpError, types
from pydantic import AnyUrl, ValidationError

from wave_tui.mcp.foreign_text import defang
from wave_tui.mcp.remote_lists import RemotePrompt
from wave_tui.mcp.results import _blob_bytes, cap_text
from wave_tui.tools.base import ToolResult, error_result


def _contents_text(contents: Sequence[Any]) -> str:
    parts = []
    for item in contents:
        uri, mime = str(item.uri), item.mimeType or "binary"
        text = getattr(item, "text", None)
        if text is not None:
            parts.append(text)
        else:
            size = _blob_bytes(str(getattr(item, "blob", "")))
            parts.append(f"[{uri} ({mime}, {size:,} bytes) — binary content not shown]")
    return defang("\n\n".join(parts))


# req: MO3
async def read_resource(
    session: ClientSession, server: str, uri: str, limit_s: float
) -> ToolResult:
    try:
        target = AnyUrl(uri)
    except ValidationError:
        return error_result(f"not a resource URI: {uri!r}")
    try:
        with anyio.fail_after(limit_s):
            result = await session.read_resource(target)
    except McpError as exc:
        return error_result(f"{server}: reading {uri} failed: {exc.error.message}")
    except TimeoutError:
        return error_result(
            f"MCP server {server!r} did not answer reading {uri} within {limit_s:g} s"
        )
    text = _contents_text(result.contents)
    shown = cap_text(text) if text else "(empty resource)"
    return ToolResult(content=shown, summary=f"{server}:{uri}: {len(text):,} characters")


def prompt_arguments(  # req: MO4
    prompt: RemotePrompt, words: Sequence[str], label: str
) -> tuple[dict[str, str], str | None]:
    """`a b name=c` → the prompt's arguments by position then by name, or a one-line problem."""
    declared = [a.name for a in prompt.arguments]
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in declared:
            values[key] = value
        elif eq and key.isidentifier():
            known = ", ".join(declared) or "none"
            return {}, f"{label}: unknown argument {key!r} (arguments: {known})"
        else:
            positional.append(word)
    free = [name for name in declared if name not in values]
    if len(positional) > len(free):
        # The last declared argument takes the rest of the words (a free-text argument).
        if not free:
            return {}, f"{label} takes no more arguments (got {' '.join(positional)!r})"
        head, rest = positional[: len(free) - 1], positional[len(free) - 1 :]
        positional = [*head, " ".join(rest)]
    values.update(zip(free, positional, strict=False))
    missing = [a.name for a in prompt.arguments if a.required and a.name not in values]
    if missing:
        return {}, f"{label}: missing required argument {', '.join(missing)}"
    return values, None


def _message_text(message: types.PromptMessage) -> str:
    content = message.content
    if isinstance(content, types.TextContent):
        text = content.text
    elif isinstance(content, types.EmbeddedResource):
        text = _contents_text([content.resource])
    else:
        text = f"[{content.type} content not shown]"
    text = defang(text)
    return text if message.role == "user" else f"[{message.role}]\n{text}"


async def get_prompt(  # req: MO4
    session: ClientSession, server: str, name: str, args: Mapping[str, str], limit_s: float
) -> tuple[str | None, str | None]:
    """(the prompt's text, None) or (None, a one-line problem)."""
    try:
        with anyio.fail_after(limit_s):
            result = await session.get_prompt(name, dict(args))
    except McpError as exc:
        return None, f"{server}/{name}: {exc.error.message}"
    except TimeoutError:
        return None, f"MCP server {server!r} did not answer prompt {name} within {limit_s:g} s"
    text = "\n\n".join(_message_text(m) for m in result.messages).strip()
    return (cap_text(text), None) if text else (None, f"{server}/{name}: the prompt is empty")
