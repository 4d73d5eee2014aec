"""Path-scoped auto and team memories in the loop: loaded after the tool result that read a
matching file, and each load counted (MM3, MM4, MM6)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from wave_tui.agent.extensions import SessionObserverBase, ToolOutcome
from wave_tui.config.clock import Clock
from wave_tui.config.paths import WavePaths
from wave_tui.llm.types import Message
from wave_tui.memory.loads import record_loads
from wave_tui.memory.path_memories import MemoryScope, PathMemoryLoader
from wave_tui.memory.team_files import team_folder

Notify = Callable[[str, str], None]


class PathMemoryHook(SessionObserverBase):
    """ToolObserver (the loads) and SessionObserver (restore). Auto memories load only while
    auto memory is on (`auto_enabled`); team memories, committed with the project, always."""

    def __init__(
        self, paths: WavePaths, auto_enabled: Callable[[], bool], clock: Clock, notify: Notify
    ) -> None:
        self.paths = paths
        self.auto_enabled = auto_enabled
        self.clock = clock
        self.notify = notify
        self.loader = PathMemoryLoader(paths.project_root)

    def _folders(self) -> list[tuple[Path, MemoryScope]]:
        folders: list[tuple[Path, MemoryScope]] = []
        if self.auto_enabled():
            folders.append((self.paths.memory_dir, "auto"))
        team = team_folder(self.paths)
        if team is not None:
            folders.append((team, "team"))
        return folders

    # req: MM3
    async def after_tool(self, outcome: ToolOutcome) -> None:
        result = outcome.result
        if result.is_error or not result.context_paths:
            return
        loaded = self.loader.on_context(result.context_paths, self._folders())
        if not loaded:
            return
        outcome.follow_ups.extend(message for _memory, message in loaded)
        record_loads(self.paths.memory_loads_file, (m.id for m, _ in loaded), self.clock())
        for memory, _message in loaded:
            self.notify("memory", f"loaded {memory.id} (path-scoped memory)")

    def on_messages_restored(self, messages: list[Message]) -> None:
        self.loader.restore(messages)
