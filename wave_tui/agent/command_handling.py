"""The built-in slash commands, registered in the one `CommandRegistry` (UX15).

Each answers locally (`CommandOutput`: not a turn, nothing sent to the model, no extraction
counted) unless it expands to a prompt. The agent is reached through `CommandHost`, a narrow
view the service implements.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from wave_tui.agent.commands import (
    Command,
    CommandOutput,
    CommandRegistry,
    CommandResult,
    CommandRun,
)
from wave_tui.agent.session_files import SessionInfo, list_sessions
from wave_tui.agent.transcript import Transcript
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.modes import mode_line
from wave_tui.permissions.policy import PermissionPolicy

# Keys of the app, for /help (the F-keys switch screens; the chat's own keys follow).
KEYS = (
    ("F1 / F2 / F3", "chat, memory browser, settings"),
    ("/", "commands: Tab completes, Enter runs, Esc closes"),
    ("Enter", "send; Shift+Enter or Ctrl+J: a new line"),
    ("↑ / ↓, Ctrl+R", "input history; search it (type, Ctrl+R again: older)"),
    ("Shift+Tab", "cycle the mode: default, accept edits, plan"),
    ("Esc", "stop the turn or !cmd; queued messages come back to the input"),
    ("Ctrl+O", "open or close the newest Thinking or output"),
    ("Tab", "walk the chat's blocks; Enter or Space opens"),
    ("Ctrl+C", "stop the turn; idle: clear, twice if empty: quit"),
    ("PgUp / PgDn", "scroll the chat (Home / End: on an empty input)"),
    ("Ctrl+L", "focus the prompt"),
    ("!cmd, @path", "run a shell command; attach a file (Tab completes)"),
    ("# text", "save a memory to AGENTS.md"),
    ("Ctrl+Q, /exit", "quit (waits for a memory extraction in flight)"),
    ("Ctrl+Z", "suspend to the shell (fg resumes); Ctrl+_ undoes in the input"),
)
# /exit and /quit outside the app (which answers them by quitting): a script simply ends.
NOTHING_TO_QUIT = "/exit and /quit end the app; here there is nothing to quit."
# Commands whose feature registers the real one when configured: (description, answer).
NOT_YET = {
    "hooks": ("List the configured hooks and the file each comes from", "No hooks configured."),
    "mcp": ("MCP servers: status, tools, last error", "No MCP servers configured."),
}


@record
class MemoryLine:
    id: str
    scope: str
    title: str


class CommandHost(Protocol):
    """What the built-in commands need from the agent."""

    @property
    def model(self) -> str | None: ...

    def current_settings(self) -> EffectiveSettings: ...

    def switch_model(self, name: str) -> None: ...

    async def compact(self, instructions: str | None = None) -> bool: ...

    def clear(self) -> None: ...

    @property
    def policy(self) -> PermissionPolicy: ...

    @property
    def paths(self) -> WavePaths: ...


def register_builtin_commands(registry: CommandRegistry, host: CommandHost) -> None:
    """`/compact`, `/clear`, `/help`, `/model`, `/resume`, `/permissions`, `/memory` and the
    placeholders of features still to come."""

    async def compact_command(args: str) -> CommandResult:
        ok = await host.compact(args or None)
        if ok:
            return CommandOutput("Conversation compacted.")
        return CommandOutput("Compaction failed.", is_error=True)

    async def clear_command(args: str) -> CommandResult:
        host.clear()
        return CommandOutput("Started a new conversation.")

    async def help_command(args: str) -> CommandResult:
        return CommandOutput(help_text(registry.all()))

    async def model_command(args: str) -> CommandResult:
        if args:
            host.switch_model(args)
            return CommandOutput(f"Model: {args} (from the next request)")
        return CommandOutput(model_list(host.model, host.current_settings()))

    async def resume_command(args: str) -> CommandResult:
        sessions = list_sessions(host.paths)
        return CommandOutput(session_list(sessions, first_prompt, time.time()))

    async def permissions_command(args: str) -> CommandResult:
        return CommandOutput(permissions_text(host.policy))

    # req: MR1
    async def memory_command(args: str) -> CommandResult:
        mode = mode_line(host.current_settings())
        lines = memory_lines(host.paths)
        if not lines:
            return CommandOutput(f"{mode}\nNo memory entries.")
        listing = "\n".join(f"{m.id}  [{m.scope}]  {m.title}" for m in lines)
        return CommandOutput(f"{mode}\n{listing}")

    builtins = [
        Command("compact", "Summarise the conversation so far", compact_command, "[focus]"),
        Command("clear", "Start a new conversation", clear_command),
        Command("help", "Commands and keys", help_command),
        Command("model", "Pick a configured model, or switch to NAME", model_command, "[NAME]"),
        Command("resume", "Pick one of this project's sessions to resume", resume_command),
        Command("permissions", "Mode, rules and this session's grants", permissions_command),
        Command("memory", "Every memory entry (the memory browser in the app)", memory_command),
        Command("exit", "Quit the app (as Ctrl+Q)", _fixed(NOTHING_TO_QUIT)),
        Command("quit", "Quit the app (as Ctrl+Q)", _fixed(NOTHING_TO_QUIT)),
    ]
    for command in builtins:
        registry.register(command)
    for name, (description, answer) in NOT_YET.items():
        registry.register(Command(name, description, _fixed(answer)))


def _fixed(answer: str) -> CommandRun:
    async def run(args: str) -> CommandResult:
        return CommandOutput(answer)

    return run


def first_prompt(info: SessionInfo) -> str:
    """A session's first prompt on one line (what a resume picker shows)."""
    for message in Transcript(info.path).load():
        if message.role == "user" and not message.is_meta and message.kind == "normal":
            return " ".join(message.content.split())[:60]
    return ""


def memory_lines(paths: WavePaths) -> list[MemoryLine]:
    return [MemoryLine(e.id, e.scope, e.title) for e in build_catalog(paths)]


def help_text(commands: Sequence[Command]) -> str:
    width = max((len(c.name) + len(c.argument_hint) for c in commands), default=0) + 3
    lines = ["Commands:"]
    for command in sorted(commands, key=lambda c: c.name):
        usage = f"/{command.name}" + (f" {command.argument_hint}" if command.argument_hint else "")
        lines.append(f"  {usage.ljust(width)} {command.description}")
    lines.append("Keys:")
    key_width = max(len(k) for k, _ in KEYS) + 2
    lines += [f"  {key.ljust(key_width)} {what}" for key, what in KEYS]
    return "\n".join(lines)


def model_list(current: str | None, settings: EffectiveSettings) -> str:
    names = sorted({*settings.models, *(n for n in (settings.model, current) if n)})
    if not names:
        return 'No model configured (set WAVE_MODEL or "model" in settings).'
    return "\n".join(("* " if name == current else "  ") + name for name in names)


def session_list(
    sessions: Sequence[SessionInfo], first_prompt: Callable[[SessionInfo], str], now: float
) -> str:
    if not sessions:
        return "No sessions for this project yet."
    rows = []
    for info in sessions:
        prompt = first_prompt(info)
        rows.append(
            f"{info.id}  {_age(now - info.last_active)}  {info.message_count} messages  {prompt}"
        )
    return "\n".join(rows)


def _age(seconds: float) -> str:
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def permissions_text(policy: PermissionPolicy) -> str:
    def rules(items: Sequence[object]) -> str:
        return ", ".join(map(_rule, items)) or "none"

    return "\n".join(
        (
            f"Mode: {policy.mode}",
            f"Allow: {rules(policy.allow)}",
            f"Deny: {rules(policy.deny)}",
            f"Granted this session: {rules(policy.session_allow)}",
        )
    )


def _rule(rule: object) -> str:
    tool = getattr(rule, "tool", "")
    pattern = getattr(rule, "pattern", None)
    return f"{tool}({pattern})" if pattern is not None else str(tool)
