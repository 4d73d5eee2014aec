"""`/mcp`: each server's status, tools and last error; `/mcp restart|auth|logout NAME`."""

from __future__ import annotations

from collections.abc import Callable

from wave_tui.agent.commands import Command, CommandOutput, CommandResult
from wave_tui.features.mcp.browser import show_authorization_url
from wave_tui.mcp.manager import McpManager, ServerStatus

USAGE = "usage: /mcp  or  /mcp restart|auth|logout NAME"
REMOTE_KINDS = ("http", "sse")
LOG_LINES_SHOWN = 10  # a server's last log messages under its status


# req: MA5
# req: MA4
def format_status(status: ServerStatus) -> str:  # req: MC7
    head = f"{status.name} ({status.kind}): {status.state}"
    if status.state == "ready":
        head += f", {len(status.tools)} tool{'s' if len(status.tools) != 1 else ''}"
    lines = [head]
    lines += [f"  {tool}" for tool in status.tools]
    if status.task_only:
        lines.append(f"  not offered (they only run as tasks): {', '.join(status.task_only)}")
    lines += [f"  not offered: {line}" for line in status.not_offered]
    if status.last_error:
        lines.append(f"  last error: {status.last_error}")
    if status.logs:
        lines.append("  log:")
        lines += [f"    {line}" for line in status.logs[-LOG_LINES_SHOWN:]]
    return "\n".join(lines)


def _quiet(_line: str) -> None:
    return None


def mcp_command(  # req: MC7
    manager: McpManager, notify: Callable[[str], None] = _quiet
) -> Command:
    """The `/mcp` command over one manager, for `CommandRegistry.register`; `notify` shows a
    line at once (the authorization URL while `/mcp auth` waits)."""

    def unknown(name: str) -> CommandOutput:
        known = ", ".join(manager.names()) or "none"
        return CommandOutput(f"no MCP server {name!r} (configured: {known})", True)

    # req: MO2
    async def authorize(name: str) -> CommandOutput:
        kind = manager.kind_of(name)
        if kind is None:
            return unknown(name)
        if kind not in REMOTE_KINDS:
            return CommandOutput(f"MCP server {name!r} is a {kind} server: no authorization", True)
        from wave_tui.mcp.http_auth import Consent

        async def show(url: str) -> None:
            notify(await show_authorization_url(name, url, "Esc cancels"))

        status = await manager.authorize(name, Consent(show))
        assert status is not None
        if status.state == "ready":
            return CommandOutput(f"MCP server {name!r} authorized\n{format_status(status)}")
        return CommandOutput(format_status(status), True)

    async def logout(name: str) -> CommandOutput:
        removed = await manager.logout(name)
        if removed is None:
            return unknown(name)
        if not removed:
            return CommandOutput(f"MCP server {name!r} has no stored authorization")
        return CommandOutput(f"MCP server {name!r}: authorization removed")

    async def run(args: str) -> CommandResult:
        words = args.split()
        if not words:
            statuses = manager.statuses()
            if not statuses:
                return CommandOutput("No MCP servers configured (.mcp.json or mcpServers).")
            return CommandOutput("\n".join(format_status(s) for s in statuses))
        if len(words) == 2 and words[0] == "restart":
            status = await manager.restart(words[1])
            if status is None:
                return unknown(words[1])
            return CommandOutput(format_status(status), status.state != "ready")
        if len(words) == 2 and words[0] == "auth":
            return await authorize(words[1])
        if len(words) == 2 and words[0] == "logout":
            return await logout(words[1])
        return CommandOutput(USAGE, True)

    return Command(
        name="mcp",
        description="MCP servers: status, tools, last error; restart, auth or logout one",
        run=run,
        argument_hint="[restart|auth|logout NAME]",
    )
