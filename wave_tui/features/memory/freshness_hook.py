"""Before each main-agent request: tell the model which fully read files changed on disk (N1–N7)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.agent.conversation import FORGOTTEN_META, READ_META
from wave_tui.agent.extensions import ContextSourceBase, SessionObserverBase
from wave_tui.config.paths import display_path
from wave_tui.files.read_state import ReadState
from wave_tui.llm.types import Message
from wave_tui.memory.changes import ChangeDetector

if TYPE_CHECKING:
    pass

Notify = Callable[[str, str], None]


class FreshnessHook(ContextSourceBase, SessionObserverBase):
    """A ContextSource: only `before_request` contributes."""

    def __init__(self, read_state: Callable[[], ReadState], root: Path, home: Path, notify: Notify):
        self.read_state = read_state
        self.root = root
        self.home = home
        self.notify = notify
        self.detector = ChangeDetector()

    def display(self, path: Path) -> str:
        return display_path(path, self.root, self.home)

    # req: N1
    def before_request(self) -> list[Message]:
        report = self.detector.detect(self.read_state(), self.display)
        message = report.message()
        if message is None:
            return []
        self.notify("changed", report.summary_line())
        return [self._with_signatures(message, report.paths)]

    # req: UX10
    def _with_signatures(self, message: Message, paths: list[Path]) -> Message:
        """The notice carries what the model now knows of each file, so a resumed session
        (--continue) starts from it and does not send the same notice again."""
        state = self.read_state()
        seen, gone = [], []
        for path in paths:
            entry = state.get(path)
            if entry is None or not entry.is_full:
                gone.append(str(path))
            else:
                seen.append({"path": str(path), "sha256": entry.sha256, "mtimeNs": entry.mtime_ns})
        meta = {**message.meta, READ_META: seen, FORGOTTEN_META: gone}
        return message.model_copy(update={"meta": meta})

    # SessionObserver: only `aclose` matters (the detector's inotify descriptor).
    async def aclose(self) -> None:
        self.detector.close()
