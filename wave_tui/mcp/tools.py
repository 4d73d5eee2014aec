"""MCP tools as wave tools: `mcp__<server>__<tool>` with the server's JSON input schema."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from wave_tui.config.records import record
from wave_tui.tools.base import ToolContext, ToolResult

MCP_PREFIX = "mcp__"
DESCRIPTION_MAX_CHARS = 2048
# Model APIs refuse a function name longer than this (OpenAI and Anthropic alike).
TOOL_NAME_MAX_CHARS = 64
# An input schema larger than this (as JSON) is sent with every request: the tool is not offered.
INPUT_SCHEMA_MAX_BYTES = 16_384
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@record
class RemoteTool:
    """A tool as the server listed it."""

    name: str
    description: str
    input_schema: dict[str, Any]


def qualified_name(server: str, tool: str) -> str:  # req: MC3
    """`mcp__server__tool`; characters a model API refuses in a function name become `_`."""
    return f"{MCP_PREFIX}{server}__{_UNSAFE.sub('_', tool)}"


def schema_problem(raw: object) -> str | None:
    """Why a server's input schema may not be forwarded to the model, or None when it may."""
    if not isinstance(raw, dict):
        return "its input schema is not an object"
    try:
        size = len(json.dumps(raw, ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError):
        return "its input schema is not JSON"
    if size > INPUT_SCHEMA_MAX_BYTES:
        return f"its input schema is {size:,} bytes (at most {INPUT_SCHEMA_MAX_BYTES:,})"
    if raw.get("type", "object") != "object":
        return "its input schema does not describe an object"
    # Imported with the first server (an mcp dependency), never at start-up.
    from jsonschema import SchemaError, validators  # type: ignore[import-untyped]

    try:
        validators.validator_for(raw).check_schema(raw)
    except SchemaError as exc:
        return f"its input schema is invalid: {exc.message[:120]}"
    return None


@record
class NotOffered:
    """Why listed tools are not offered; `servers` are theirs (for each one's `/mcp` status)."""

    servers: tuple[str, ...]
    line: str


# req: MC3
def offered_tools(
    listed: Sequence[tuple[str, RemoteTool]],
) -> tuple[list[tuple[str, RemoteTool]], list[NotOffered]]:
    """The `(server, tool)` pairs that may be offered, and one line for each one that may not:
    a name a model API refuses (too long), two tools that would share one name after the
    unsafe characters became `_` (neither is offered: a call could not tell them apart, nor a
    rule that allows one), an input schema that is invalid or too large."""
    problems: list[NotOffered] = []
    by_name: dict[str, list[tuple[str, RemoteTool]]] = {}
    for server, remote in listed:
        by_name.setdefault(qualified_name(server, remote.name), []).append((server, remote))
    offered: list[tuple[str, RemoteTool]] = []
    for name, pairs in by_name.items():
        if len(pairs) > 1:
            names = ", ".join(repr(f"{s}/{r.name}") for s, r in pairs)
            servers = tuple(dict.fromkeys(s for s, _ in pairs))
            line = f"MCP tools {names} not offered: they share the name {name}"
            problems.append(NotOffered(servers, line))
            continue
        server, remote = pairs[0]
        why = None
        if len(name) > TOOL_NAME_MAX_CHARS:
            why = f"its name {name} is longer than {TOOL_NAME_MAX_CHARS} characters"
        else:
            why = schema_problem(remote.input_schema)
        if why is not None:
            line = f"MCP tool {server}/{remote.name!r} not offered: {why}"
            problems.append(NotOffered((server,), line))
            continue
        offered.append((server, remote))
    return offered, problems


def _schema(raw: dict[str, Any]) -> dict[str, Any]:
    schema = dict(raw)
    schema.setdefault("type", "object")
    if schema["type"] == "object":
        schema.setdefault("properties", {})
    return schema


CallTool = Callable[[str, str, dict[str, Any]], Awaitable[ToolResult]]


class McpTool:  # req: MC3
    """One server tool. Never read-only: a server's read-only hint does not bypass approval."""

    read_only = False

    def __init__(self, server: str, remote: RemoteTool, call: CallTool) -> None:
        self.server = server
        self.remote_name = remote.name
        self.name = qualified_name(server, remote.name)
        text = remote.description.strip() or f"Tool {remote.name} of the MCP server {server}."
        if len(text) > DESCRIPTION_MAX_CHARS:
            text = text[:DESCRIPTION_MAX_CHARS] + "…"
        self.description = text
        self.parameters = _schema(remote.input_schema)
        self._call = call

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self._call(self.server, self.remote_name, args)
