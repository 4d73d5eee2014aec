"""How wave's tool calls and an ACP prompt translate into each other (titles, kinds, text)."""

from __future__ import annotations

from typing import Any

from wave_tui.permissions.tool_table import key_argument

_KINDS: dict[str, str] = {
    "Read": "read",
    "Write": "edit",
    "Edit": "edit",
    "Glob": "search",
    "Grep": "search",
    "Bash": "execute",
    "WebFetch": "fetch",
}


def tool_kind(name: str) -> Any:
    """The ACP tool kind the client picks an icon by."""
    return _KINDS.get(name, "other")


def tool_title(name: str, args: dict[str, Any]) -> str:
    key = key_argument(name, args)
    return f"{name} {key}" if key else name


def prompt_text(blocks: list[Any]) -> str:
    """The prompt's text: text blocks as they are, an embedded resource as its text, a link
    as an `@path` mention (wave attaches the file)."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is not None:
                parts.append(f"{resource.uri}:\n{text}")
        elif kind == "resource_link":
            uri = str(block.uri)
            path = uri.removeprefix("file://")
            parts.append("@" + path.replace(" ", "\\ "))
    return "\n\n".join(parts)
