"""The memory slash commands, `/init` (MX1) and `/context` (MX2), as `Command` objects for the
command registry (`agent/commands.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wave_tui.agent.commands import Command, CommandOutput, CommandResult, PromptExpansion
from wave_tui.config.paths import WavePaths
from wave_tui.memory.agents_md import folder_memory_file
from wave_tui.memory.prompts import render_init_prompt

if TYPE_CHECKING:
    from wave_tui.agent.service import AgentService

INIT_DESCRIPTION = "Study the repository and write AGENTS.md (or improve the existing one)"
CONTEXT_DESCRIPTION = "What the next request costs, per memory source and block"


def init_command(paths: WavePaths) -> Command:
    """`/init [what to focus on]` → a turn that writes or improves the project AGENTS.md."""

    async def run(args: str) -> CommandResult:
        # req: MX1
        existing = folder_memory_file(paths.project_root)
        return PromptExpansion(render_init_prompt(paths.project_agents_md, existing, args))

    return Command("init", INIT_DESCRIPTION, run, argument_hint="[focus]")


def context_command(service: AgentService) -> Command:
    """`/context` → the per-source cost report of the next request, answered locally."""

    # req: MX2
    async def run(args: str) -> CommandResult:
        from wave_tui.features.memory.context_report import build_context_report

        return CommandOutput(build_context_report(service).render())

    return Command("context", CONTEXT_DESCRIPTION, run)


def memory_commands(service: AgentService) -> list[Command]:
    return [init_command(service.paths), context_command(service)]
