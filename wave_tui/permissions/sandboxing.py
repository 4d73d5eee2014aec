"""What the permission layer asks of a Bash sandbox, and what it is told (the seam only).

The sandbox itself is a feature (`features/sandbox/`); the policy holds one `CommandSandbox` when
it is configured and asks it about each Bash command it would let run: the argv prefix that
runs the command sandboxed, or why it must run outside (an excluded command, the retry of one
the sandbox blocked) — then the user is asked first.
"""

from __future__ import annotations

from typing import Literal, Protocol

from wave_tui.config.records import record
from wave_tui.permissions.call_facts import CommandFacts


@record
class SandboxChoice:
    """`sandboxed`: run under `prefix`, no approval needed in default mode; `outside`: run as
    before, after asking (`reason` says why); `off`: no sandbox in force."""

    kind: Literal["sandboxed", "outside", "off"]
    prefix: tuple[str, ...] = ()
    reason: str = ""


SANDBOX_OFF = SandboxChoice("off")


class CommandSandbox(Protocol):
    def choice(self, command: CommandFacts) -> SandboxChoice: ...
