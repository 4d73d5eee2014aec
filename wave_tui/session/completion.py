"""The slash-command completion list the input offers, one row per command."""

from __future__ import annotations

from collections.abc import Sequence

from wave_tui.agent.commands import Command
from wave_tui.config.records import record


@record
class CommandChoice:
    name: str
    description: str
    argument_hint: str
    source: str


def command_choices(commands: Sequence[Command]) -> list[CommandChoice]:
    return [CommandChoice(c.name, c.description, c.argument_hint, c.source) for c in commands]
