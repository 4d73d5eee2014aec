"""What every part of the `AgentSession` facade shares.

The agent (None while it could not start or is still starting: memory and settings work
without it), the settings store, the paths, the clock, the event stream to the front end and
the one way to say the status may read differently now. `AgentSession.attach` swaps the agent
and its store here, so every part sees the new one at once.
"""

from __future__ import annotations

from collections.abc import Callable

from wave_tui.agent.events import Emit
from wave_tui.agent.service import AgentService
from wave_tui.config.clock import Clock, system_clock
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.config.settings import SettingsStore

utc_now = system_clock


@record(frozen=False)
class SessionCore:
    service: AgentService | None
    store: SettingsStore
    paths: WavePaths
    clock: Clock
    emit: Emit
    status_changed: Callable[[], None]

    def agent(self) -> AgentService:
        """The agent, for what needs one (chat); RuntimeError when it could not start."""
        if self.service is None:
            raise RuntimeError("the agent could not start")
        return self.service
