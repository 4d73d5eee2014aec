"""The session's Bash sandbox: settings `sandbox`, the policy's `CommandSandbox`, `/sandbox`.

With `sandbox.enabled` and `bwrap` on the machine, every Bash command runs under bubblewrap:
the project, a private `/tmp` and `writablePaths` writable, the network off with `network:
none`. Such a command needs no approval in default mode (what it can change is bounded); an
excluded command (`excludedCommands`: names or word prefixes, matched per part of a compound
command) and the retry of a command the sandbox blocked run outside it, after asking. Without
`bwrap`, one warning, and Bash asks as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.agent.commands import Command, CommandOutput, CommandResult
from wave_tui.agent.extensions import (
    ToolObserver,
    ToolOutcome,
    TurnObserver,
    TurnObserverBase,
    TurnStart,
)
from wave_tui.features.sandbox.bwrap import bwrap_path, sandbox_argv
from wave_tui.features.sandbox.protected import home_args, protected_args
from wave_tui.features.sandbox.writable import writable_paths
from wave_tui.permissions.call_facts import CommandFacts
from wave_tui.permissions.sandboxing import SANDBOX_OFF, SandboxChoice
from wave_tui.permissions.tool_table import BASH

if TYPE_CHECKING:
    from wave_tui.agent.service import AgentService
    from wave_tui.config.schema import SandboxConfig

NO_BWRAP = (
    "sandbox.enabled is set but bubblewrap (bwrap) is not installed: Bash commands run "
    "unsandboxed and ask as before"
)
# What a command prints when the sandbox stopped it (a write outside, a connection).
BLOCKED_MARKERS = (
    "Read-only file system",
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Operation not permitted",
    "Permission denied",
)
BLOCKED_NOTE = (
    "\n\n[This ran in the sandbox, which may have blocked it (writes outside the project, /tmp "
    "and sandbox.writablePaths fail; the network is {network}). Running the same command again "
    "asks the user to run it outside the sandbox.]"
)


def _excluded(command: CommandFacts, excluded: list[str]) -> str | None:
    """The first excluded command a part of `command` starts with, or None. The parts are the
    pieces deny rules see (every simple command, inside substitutions and behind `sudo` too):
    an exclusion must not be dodged by the spelling a deny rule would catch."""
    prefixes = [tuple(e.split()) for e in excluded if e.split()]
    pieces = [part.words for part in command.parts or ()]
    pieces += [tuple(piece.split()) for piece in command.deny_pieces]
    for words in pieces:
        for prefix in prefixes:
            if tuple(words[: len(prefix)]) == prefix:
                return " ".join(prefix)
    return None


# req: SB4
class BashSandbox(TurnObserverBase):
    """The policy's `CommandSandbox`, a turn observer (the one warning) and a tool observer
    (a blocked command's retry asks)."""

    def __init__(self, service: AgentService) -> None:
        self._service = service
        self._blocked: set[str] = set()  # command texts the sandbox blocked once
        self._warned = False
        self._refused: set[str] = set()  # writablePaths entries already warned about

    def _config(self) -> SandboxConfig:
        return self._service.current_settings().sandbox

    def _writable(self, config: SandboxConfig) -> list[Path]:
        """The project and the `writablePaths` the guard lets open (`writable.py`); each
        refused entry is said once."""
        choice = writable_paths(config.writable_paths, self._service.paths.home)
        for refused in choice.refused:
            if refused not in self._refused:
                self._refused.add(refused)
                self._service.notify("warning", f"sandbox.writablePaths: {refused}: not opened")
        return [self._service.paths.project_root, *choice.kept]

    def _prefix(self, bwrap: str, config: SandboxConfig) -> tuple[str, ...]:
        writable = self._writable(config)
        project, others = writable[0], writable[1:]
        protect = protected_args(project, others)
        protect += home_args(self._service.paths.home, writable)
        return sandbox_argv(
            bwrap,
            writable,
            network=config.network == "allow",
            protect=protect,
            allowed_sockets=config.allow_unix_sockets,
        )

    # -- CommandSandbox ------------------------------------------------------------------------
    # req: SB2
    # req: SB3
    def choice(self, command: CommandFacts) -> SandboxChoice:
        config = self._config()
        bwrap = bwrap_path()
        if not config.enabled or bwrap is None:
            return SANDBOX_OFF
        excluded = _excluded(command, config.excluded_commands)
        if excluded is not None:
            return SandboxChoice("outside", reason=f"{excluded} is in sandbox.excludedCommands")
        if command.text in self._blocked:
            return SandboxChoice("outside", reason="the sandbox blocked this command before")
        return SandboxChoice("sandboxed", self._prefix(bwrap, config))

    # -- the retry of a blocked command ----------------------------------------------------------
    async def after_tool(self, outcome: ToolOutcome) -> None:
        command = outcome.call.facts.command
        result = outcome.result
        if outcome.call.name != BASH or command is None or not result.is_error:
            return
        if self.choice(command).kind != "sandboxed":
            return
        if any(marker in result.content for marker in BLOCKED_MARKERS):
            self._blocked.add(command.text)
            network = "allowed" if self._config().network == "allow" else "off"
            result.content += BLOCKED_NOTE.format(network=network)

    # -- SB5: one warning without bwrap ----------------------------------------------------------
    # req: SB5
    async def on_turn_start(self, prompt: str) -> TurnStart:
        if not self._warned and self._config().enabled and bwrap_path() is None:
            self._warned = True
            self._service.notify("warning", NO_BWRAP)
        return TurnStart()

    # -- /sandbox ----------------------------------------------------------------------------
    def state(self) -> str:
        config = self._config()
        bwrap = bwrap_path()
        if not config.enabled:
            head = "Sandbox: off (settings sandbox.enabled)."
        elif bwrap is None:
            head = "Sandbox: enabled, but bwrap is not installed: Bash runs unsandboxed, asking."
        else:
            head = f"Sandbox: on ({bwrap}); sandboxed Bash commands run without asking."
        lines = [
            head,
            f"  writable: {', '.join(str(p) for p in self._writable(config))}, a private /tmp",
            f"  network: {config.network}",
            "  read-only inside: .wave/, .claude/, .mcp.json, .git/hooks, .git/config",
            f"  Unix sockets: {', '.join(config.allow_unix_sockets) or 'none'}",
            f"  excluded commands: {', '.join(config.excluded_commands) or '(none)'}",
        ]
        if bwrap is not None:
            lines.append("  the extraction fork's Bash: sandboxed, only the memory folder writable")
        return "\n".join(lines)

    def command(self) -> Command:
        async def run(args: str) -> CommandResult:
            return CommandOutput(self.state())

        return Command("sandbox", "Show the Bash sandbox: on or off, what is writable", run)


def install_sandbox(service: AgentService) -> BashSandbox:
    """The sandbox as the policy's seam, a loop extension and `/sandbox` (cheap: no import of
    anything heavy; `bwrap` is looked for on the first Bash command)."""
    sandbox = BashSandbox(service)
    service.policy.sandbox = sandbox
    service.add_extension(sandbox, ToolObserver, TurnObserver)
    service.commands.register(sandbox.command())
    return sandbox
