"""`/lsp`: each configured language server, its state, workspace and last error."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from wave_tui.agent.commands import Command, CommandOutput, CommandResult
from wave_tui.config.paths import display_path
from wave_tui.features.lsp.manager import LspManager, ServerStatus


def format_status(status: ServerStatus, root_of: LspManager) -> str:
    extensions = " ".join(status.extensions)
    head = f"{status.name}: {status.state}  ({extensions} · {status.command})"
    lines = [head]
    if status.workspace is not None:
        lines.append(f"  workspace: {display_path(status.workspace, root_of.root)}")
    if status.restarts:
        lines.append(f"  restarted {status.restarts} time{'s' if status.restarts != 1 else ''}")
    if status.last_error:
        lines.append(f"  last error: {status.last_error}")
    return "\n".join(lines)


# req: LS5
def lsp_command(manager: LspManager, problems: Callable[[], Sequence[str]]) -> Command:
    """The `/lsp` command over one manager, for `CommandRegistry.register`."""

    async def run(args: str) -> CommandResult:
        statuses = manager.statuses()
        lines = [format_status(s, manager) for s in statuses]
        lines += [f"problem: {p}" for p in problems()]
        if not lines:
            return CommandOutput("No LSP servers configured (settings `lspServers`).")
        return CommandOutput("\n".join(lines))

    return Command(
        name="lsp", description="Language servers: state, workspace, last error", run=run
    )
