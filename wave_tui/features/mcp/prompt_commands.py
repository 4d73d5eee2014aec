"""Each prompt of a ready server as the command `/mcp__server__prompt ARGS` (MO4).

Arguments are given by position (in the prompt's order; the last one takes the rest of the
words) and by name (`name=value`); quotes group words. The prompt's messages are the turn's text.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wave_tui.agent.commands import Command, CommandOutput, CommandResult, PromptExpansion
from wave_tui.mcp.tools import MCP_PREFIX

if TYPE_CHECKING:
    from wave_tui.mcp.manager import McpManager
    from wave_tui.mcp.remote_lists import RemotePrompt

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
DESCRIPTION_MAX_CHARS = 200


def command_name(server: str, prompt: str) -> str:  # req: MO4
    return f"{MCP_PREFIX}{server}__{_UNSAFE.sub('_', prompt)}"


def _hint(prompt: RemotePrompt) -> str:
    return " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in prompt.arguments)


class PromptCommands:  # req: MO4
    """A `CommandProvider`: the commands follow the servers' prompt lists as they change."""

    def __init__(self, manager: McpManager) -> None:
        self._manager = manager

    def commands(self) -> Sequence[Command]:
        return [self._command(server, prompt) for server, prompt in self._manager.prompts()]

    def _command(self, server: str, prompt: RemotePrompt) -> Command:
        manager = self._manager

        async def run(args: str) -> CommandResult:
            from wave_tui.mcp.resources import prompt_arguments

            try:
                words = shlex.split(args)
            except ValueError as exc:
                return CommandOutput(f"/{command_name(server, prompt.name)}: {exc}", True)
            values, problem = prompt_arguments(
                prompt, words, f"/{command_name(server, prompt.name)}"
            )
            if problem is not None:
                return CommandOutput(problem, True)
            text, problem = await manager.get_prompt(server, prompt.name, values)
            if text is None:
                return CommandOutput(problem or "the prompt failed", True)
            return PromptExpansion(text)

        about = " ".join(prompt.description.split()) or f"prompt {prompt.name} of {server}"
        if len(about) > DESCRIPTION_MAX_CHARS:
            about = about[:DESCRIPTION_MAX_CHARS] + "…"
        return Command(
            name=command_name(server, prompt.name),
            description=about,
            run=run,
            argument_hint=_hint(prompt),
            source=f"mcp:{server}",
        )
