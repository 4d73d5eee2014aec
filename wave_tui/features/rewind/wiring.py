"""Plugs the checkpoint hook into an agent (Write/Edit checkpointed from the first turn) and
registers `/rewind` and `/fork`, which the app answers with its dialogs (elsewhere, `wave -p`,
they say where the same is done from a script), and `/rename NAME`, which names the session."""

from __future__ import annotations

import asyncio

from wave_tui.agent.commands import Command, CommandOutput, CommandResult, CommandRun
from wave_tui.agent.extensions import SessionObserver, ToolObserver, ToolPreparer, TurnObserver
from wave_tui.agent.service import AgentService
from wave_tui.features.rewind.hook import CheckpointHook
from wave_tui.features.rewind.names import session_name, set_session_name

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
    service.add_extension(hook, ToolPreparer, ToolObserver, TurnObserver, SessionObserver)
    service.commands.register(
        Command(
            "rewind", "Undo to before a message: code, conversation or both", _elsewhere("rewind")
        )
    )
    service.commands.register(
        Command("fork", "Continue in a copy of this conversation", _elsewhere("fork"))
    )
    service.commands.register(
        Command("rename", "Name this conversation (shown in /resume)", _rename(service), "NAME")
    )
    return hook


# req: FH11
def _rename(service: AgentService) -> CommandRun:
    async def run(args: str) -> CommandResult:
        paths, sid = service.paths, service.session_id
        if not args.strip():
            name = await asyncio.to_thread(session_name, paths, sid)
            if name is None:
                return CommandOutput("This conversation has no name: /rename NAME gives it one.")
            return CommandOutput(f"This conversation is named {name!r}: /rename NAME changes it.")
        try:
            name = await asyncio.to_thread(set_session_name, paths, sid, args)
        except OSError as exc:
            return CommandOutput(f"Could not rename: {exc}", is_error=True)
        return CommandOutput(f"Renamed this conversation to {name!r}.")

    return run


def _elsewhere(name: str) -> CommandRun:
    async def run(_args: str) -> CommandResult:
        return CommandOutput(IN_A_SCRIPT[name])

    return run
