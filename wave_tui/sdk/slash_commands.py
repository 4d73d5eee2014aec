"""The SDK's slash-command API (004 §11): list, look up, add and reload the session's commands.

The commands are the session's own (`/help` lists the same): built-ins, custom command files
(`.wave/commands/`, `~/.wave/commands/`, plugins'), skills, MCP prompts and those a program
registers. A registered command runs when a message starting with `/name` is sent; what its
handler returns (a str) is the command's output, shown as the app shows a command's output.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from wave_tui.agent.commands import COMMAND_WORD, Command, CommandOutput, CommandRegistry
from wave_tui.config.records import record

SlashSource = Literal["built-in", "custom", "skill", "mcp", "sdk"]
# A handler gets the text after the command's name; it may be async, and returns the output.
SlashHandler = Callable[[str], "str | Awaitable[str | None] | None"]
SDK_SOURCE = "sdk"


@record
class SlashCommand:
    """A command of the session: `name` without the slash; `source` says where it comes from
    (`custom`: a command file of the project, the user or a plugin)."""

    name: str
    description: str
    argument_hint: str
    source: SlashSource


def _source(command: Command) -> SlashSource:
    if command.source in ("built-in", "skill", SDK_SOURCE):
        return command.source  # type: ignore[return-value]  # checked just above
    if command.source.startswith("mcp"):
        return "mcp"
    return "custom"


def _public(command: Command) -> SlashCommand:
    return SlashCommand(command.name, command.description, command.argument_hint, _source(command))


# req: SX10
class SlashCommands:
    """The registry seen from a program."""

    def __init__(self, registry: CommandRegistry) -> None:
        self._registry = registry

    def all(self) -> list[SlashCommand]:
        return [_public(c) for c in self._registry.all()]

    def has(self, name: str) -> bool:
        return self._registry.get(name.removeprefix("/")) is not None

    def register(
        self, name: str, description: str, handler: SlashHandler, argument_hint: str = ""
    ) -> None:
        """ValueError for a name that is not one word or is a built-in's."""
        name = name.removeprefix("/") if isinstance(name, str) else name
        if not isinstance(name, str) or COMMAND_WORD.match("/" + name) is None:
            raise ValueError(f"a command name is one word of letters, digits, - _ or : ({name!r})")
        existing = self._registry.get(name)
        if existing is not None and existing.source == "built-in":
            raise ValueError(f"/{name} is a built-in command")
        if not callable(handler):
            raise TypeError("handler must be callable")

        async def run(args: str) -> CommandOutput:
            result: Any = handler(args)
            if inspect.isawaitable(result):
                result = await result
            return CommandOutput("" if result is None else str(result))

        self._registry.register(Command(name, description, run, argument_hint, SDK_SOURCE))

    def custom(self) -> list[SlashCommand]:
        """The command files' commands, read again from disk now."""
        return [_public(c) for c in self._registry.all() if _source(c) == "custom"]

    def custom_one(self, name: str) -> SlashCommand | None:
        return next((c for c in self.custom() if c.name == name.removeprefix("/")), None)
