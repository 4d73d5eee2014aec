"""`ListMcpResources(server?)` and `ReadMcpResource(server, uri)`: the servers' resources as
read-only tools, declared only while a ready server offers resources."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from wave_tui.mcp.results import cap_text
from wave_tui.permissions.tool_table import LIST_MCP_RESOURCES, READ_MCP_RESOURCE
from wave_tui.tools.arguments import Arg, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult

if TYPE_CHECKING:
    from wave_tui.mcp.manager import McpManager

LIST_DESCRIPTION = """\
List the resources the MCP servers publish (files, records, documents), one per line as \
`server:uri  name — description`, then their resource templates (`server:uriTemplate`, a URI \
with `{placeholders}` to fill in). Give `server` to list one server's only. Read one with \
ReadMcpResource."""

READ_DESCRIPTION = """\
Read one resource of an MCP server by its URI (as ListMcpResources shows it). Long contents \
are cut; binary contents are named, not shown."""


@tool_arguments
class ListArgs:
    server: Annotated[str | None, Arg("Only this server's resources.")] = None


@tool_arguments
class ReadArgs:
    server: Annotated[str, Arg("The MCP server's name.")]
    uri: Annotated[str, Arg("The resource's URI.")]


# req: MA6
class ListMcpResourcesTool(TypedTool[ListArgs]):  # req: MO3
    name = LIST_MCP_RESOURCES
    description = LIST_DESCRIPTION
    read_only = True
    arguments = ListArgs

    def __init__(self, manager: McpManager) -> None:
        self._manager = manager

    async def call(self, args: ListArgs, ctx: ToolContext) -> ToolResult:
        if args.server is not None and args.server not in self._manager.names():
            known = ", ".join(self._manager.names()) or "none"
            raise ToolError(f"no MCP server {args.server!r} (servers: {known})")
        found = self._manager.resources(args.server)
        templates = self._manager.templates(args.server)
        if not found and not templates:
            return ToolResult("(no resources)", summary="0 resources")
        lines = []
        for server, r in found:
            about = f" — {r.description}" if r.description else ""
            lines.append(f"{server}:{r.uri}  {r.name}{about}")
        if templates:
            lines.append("Resource templates (fill in the {placeholders}, then read the URI):")
        for server, t in templates:
            about = f" — {t.description}" if t.description else ""
            lines.append(f"{server}:{t.uri_template}  {t.name}{about}")
        summary = f"{len(found)} resources"
        summary += f", {len(templates)} templates" if templates else ""
        return ToolResult(cap_text("\n".join(lines)), summary=summary)


class ReadMcpResourceTool(TypedTool[ReadArgs]):  # req: MO3
    name = READ_MCP_RESOURCE
    description = READ_DESCRIPTION
    read_only = True
    arguments = ReadArgs

    def __init__(self, manager: McpManager) -> None:
        self._manager = manager

    async def call(self, args: ReadArgs, ctx: ToolContext) -> ToolResult:
        return await self._manager.read_resource(args.server, args.uri)
