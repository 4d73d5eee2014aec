"""The slash-command layer: one registry for the app and `wave -p`.

A message is a command when its first word is `/name` (letters, digits, `-`, `_`, `:`) and that
word is not an existing absolute path (`/tmp/x is broken` is plain text). Built-in commands,
custom commands (`.wave/commands/…`) and skills all live here; features add theirs by
registering a `Command` or a `CommandProvider` — the loop never parses commands itself.

A command answers with one of three results:
- `CommandOutput`: text for the user, answered locally — not a turn, nothing sent to the model;
- `PromptExpansion`: a prompt to run as a normal turn (custom commands, skills, `/init`);
- `None`: the command acted on the session itself (e.g. `/clear`) and has nothing to show.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from wave_tui.config.records import record

COMMAND_WORD = re.compile(r"^/([A-Za-z0-9_:-]+)$")


@record
class CommandOutput:
    text: str
    is_error: bool = False


@record
class PromptExpansion:
    prompt: str
    allowed_tools: tuple[str, ...] = ()  # permission rules granted for this turn only
    model: str | None = None  # model override for this turn only


CommandResult = CommandOutput | PromptExpansion | None
CommandRun = Callable[[str], Awaitable[CommandResult]]


@record
class Command:
    name: str  # without the slash; `sub:name` for nested custom commands
    description: str
    run: CommandRun  # gets the argument text after the name (stripped)
    argument_hint: str = ""
    source: str = "built-in"  # "built-in", "project", "user", "skill", … (shown in /help)


@runtime_checkable
class CommandProvider(Protocol):
    """Commands that come and go (custom command files, skills): asked on every lookup."""

    def commands(self) -> Sequence[Command]: ...


@record
class ParsedCommand:
    name: str
    args: str


def parse_command(text: str) -> ParsedCommand | None:
    """`/name args` → ParsedCommand; plain text (or an existing absolute path) → None."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    parts = stripped.split(maxsplit=1)
    first = parts[0]
    match = COMMAND_WORD.match(first)
    if match is None or Path(first).exists():
        return None
    args = parts[1].strip() if len(parts) > 1 else ""
    return ParsedCommand(match.group(1), args)


class CommandRegistry:
    def __init__(self) -> None:
        self._builtin: dict[str, Command] = {}
        self._providers: list[CommandProvider] = []

    def register(self, command: Command) -> None:
        self._builtin[command.name] = command

    def add_provider(self, provider: CommandProvider) -> None:
        self._providers.append(provider)

    def all(self) -> list[Command]:
        """Every command, built-ins first; a provider's command never shadows a built-in, and
        an earlier provider wins over a later one (precedence is the order they were added)."""
        seen = dict(self._builtin)
        for provider in self._providers:
            for command in provider.commands():
                seen.setdefault(command.name, command)
        return list(seen.values())

    def get(self, name: str) -> Command | None:
        if name in self._builtin:
            return self._builtin[name]
        for provider in self._providers:
            for command in provider.commands():
                if command.name == name:
                    return command
        return None

    def complete(self, prefix: str) -> list[Command]:
        """Commands whose name starts with `prefix` (without the slash), sorted by name."""
        return sorted((c for c in self.all() if c.name.startswith(prefix)), key=lambda c: c.name)

    async def dispatch(self, text: str) -> CommandResult:
        """Run the command in `text`. Returns the command's result, or an unknown-command
        output. Callers check `parse_command` first for plain text."""
        parsed = parse_command(text)
        if parsed is None:
            raise ValueError("not a command")
        command = self.get(parsed.name)
        if command is None:
            return CommandOutput(f"unknown command /{parsed.name} — /help lists them", True)
        return await command.run(parsed.args)
