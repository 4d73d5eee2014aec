"""MCP tools as wave tools: `mcp__<server>__<tool>` with the server's JSON input schema."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from wave_tui.config.records import record
from wave_tui.tools.base import ToolContext, ToolResult

MCP_PREFIX = "mcp__"
DESCRIPTION_MAX_CHARS = 2048
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
