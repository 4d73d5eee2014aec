"""`/mcp`: each server's status, tools and last error; `/mcp restart NAME`."""

from __future__ import annotations

from wave_tui.agent.commands import Command, CommandOutput, CommandResult
from wave_tui.mcp.manager import McpManager, ServerStatus

USAGE = "usage: /mcp  or  /mcp restart NAME"


def format_status(status: ServerStatus) -> str:  # req: MC7
    head = f"{status.name} ({status.kind}): {status.state}"
    if status.state == "ready":
        head += f", {len(status.tools)} tool{'s' if len(status.tools) != 1 else ''}"
    lines = [head]
    lines += [f"  {tool}" for tool in status.tools]
    if status.last_error:
        lines.append(f"  last error: {status.last_error}")
    return "\n".join(lines)


def mcp_command(manager: McpManager) -> Command:  # req: MC7
    """The `/mcp` command over one manager, for `CommandRegistry.register`."""

    async def run(args: str) -> CommandResult:
        words = args.split()
        if not words:
            statuses = manager.statuses()
            if not statuses:
                return CommandOutput("No MCP servers configured (.mcp.json or mcpServers).")
            return CommandOutput("\n".join(format_status(s) for s in statuses))
        if words[0] == "restart" and len(words) == 2:
            status = await manager.restart(words[1])
            if status is None:
                known = ", ".join(manager.names()) or "none"
                return CommandOutput(f"no MCP server {words[1]!r} (configured: {known})", True)
            return CommandOutput(format_status(status), status.state != "ready")
        return CommandOutput(USAGE, True)

    return Command(
        name="mcp",
        description="MCP servers: status, tools, last error; restart one",
        run=run,
        argument_hint="[restart NAME]",
    )
