"""Plugs the checkpoint hook into an agent (Write/Edit checkpointed from the first turn) and
registers `/rewind` and `/fork`, which the app answers with its dialogs; elsewhere (`wave -p`)
they say where the same is done from a script."""

from __future__ import annotations

from wave_tui.agent.commands import Command, CommandOutput, CommandResult, CommandRun
from wave_tui.agent.service import AgentService
from wave_tui.features.rewind.hook import CheckpointHook

IN_A_SCRIPT = {
    "rewind": "/rewind is a dialog of the app; in a script: wave sessions rewind ID --to N",
    "fork": "/fork is the app's; in a script: wave sessions fork ID (or --fork-session)",
}


def install_checkpoints(service: AgentService) -> CheckpointHook:
    hook = CheckpointHook(
        service.paths,
        session_id=lambda: service.session_id,
        messages=lambda: service.messages,
        model=lambda: service.model,
        notify=service.notify,
    )
    service.add_extension(hook)
    service.commands.register(
        Command(
            "rewind", "Undo to before a message: code, conversation or both", _elsewhere("rewind")
        )
    )
    service.commands.register(
        Command("fork", "Continue in a copy of this conversation", _elsewhere("fork"))
    )
    return hook


def _elsewhere(name: str) -> CommandRun:
    async def run(_args: str) -> CommandResult:
        return CommandOutput(IN_A_SCRIPT[name])

    return run
