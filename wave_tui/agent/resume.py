"""Which conversation the service holds, and what switching to another one resets.

The one at start (`--continue` / `--resume`), another of the project's sessions picked later
(the resume picker), a new empty one (`/clear`), the summary after a compaction. Every switch
tells the extensions (`SessionObserver.on_messages_restored`); leaving a conversation also
forgets the turn runner's last request and resets the compaction breaker. Old transcripts are
cleaned up in the background, never the chain of the conversation in use (F8).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

from wave_tui.agent.compaction_flow import CompactionFlow
from wave_tui.agent.conversation import Conversation
from wave_tui.agent.extensions import Extensions
from wave_tui.agent.request import RequestBuilder
from wave_tui.agent.session_files import CleanupReport, cleanup_old_sessions, session_chain
from wave_tui.agent.transcript import transcript_for
from wave_tui.agent.turn_runner import TurnRunner
from wave_tui.config.paths import WavePaths


class ConversationSwitch:
    def __init__(
        self,
        *,
        conversation: Conversation,
        runner: TurnRunner,
        compaction: CompactionFlow,
        requests: RequestBuilder,
        extensions: Extensions,
    ) -> None:
        self._conversation = conversation
        self._runner = runner
        self._compaction = compaction
        self._requests = requests
        self._extensions = extensions

    def restore_at_start(self, resume: str | None, continue_last: bool) -> None:
        """The session `--resume ID` / `--continue` names, if any. Raises FileNotFoundError."""
        session = self._conversation.find_session(resume, continue_last)
        if session is not None:
            self._conversation.restore(session)
            self.messages_restored()

    # req: UX15
    def resume(self, session_id: str) -> None:
        """Switch to another of the project's conversations (a compacted one continues in its
        newest descendant). Raises FileNotFoundError for an unknown id."""
        target = self._conversation.find_session(session_id, False)
        assert target is not None  # an id always names a session or raises
        self._forget()
        self._conversation.restore(target)
        self._requests.invalidate()
        self.messages_restored()

    def clear(self) -> None:
        """A new, empty conversation (the old transcript stays on disk)."""
        self._conversation.clear()
        self._forget()
        self.messages_restored()

    def after_compaction(self) -> None:
        self._requests.invalidate()  # AGENTS.md / MEMORY.md are read again
        self.messages_restored()

    def _forget(self) -> None:
        self._runner.forget()
        self._compaction.reset()

    def messages_restored(self) -> None:
        for extension in self._extensions.session_observers:
            extension.on_messages_restored(self._conversation.messages)


# Start-up is CPU-bound and single-threaded: a cleanup thread running beside it fights it for
# the GIL (~300 context switches a `wave -p` run, for no file deleted). It starts this long
# after the session does (by then a model is usually streaming and the CPU idle), or at once
# when the session closes first — before the process ends, as ever.
CLEANUP_DELAY_S = 2.0

CleanupArgs = tuple[WavePaths, int, float, frozenset[Path]]  # cleanup_old_sessions' arguments


class DeferredCleanup:
    """The expiry of old transcripts, run in a thread once start-up is over (F8)."""

    def __init__(self, args: CleanupArgs) -> None:
        self._now = asyncio.Event()
        self.task: asyncio.Task[CleanupReport] = asyncio.get_running_loop().create_task(
            self._run(args)
        )

    async def _run(self, args: CleanupArgs) -> CleanupReport:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLEANUP_DELAY_S):
                await self._now.wait()
        return await asyncio.to_thread(cleanup_old_sessions, *args)

    async def finish(self) -> CleanupReport:
        """Start it now if it has not started, and wait for it."""
        self._now.set()
        return await self.task


# req: F8
def start_cleanup(paths: WavePaths, period_days: int, session_id: str) -> DeferredCleanup | None:
    """Delete transcripts older than cleanupPeriodDays in the background (never memory/).
    A deferred task when a loop runs (the caller owns it and finishes it on close); else
    done inline."""
    if period_days <= 0:
        return None
    keep = frozenset(transcript_for(paths, sid).path for sid in session_chain(paths, session_id))
    args: CleanupArgs = (paths, period_days, time.time(), keep)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        cleanup_old_sessions(*args)
        return None
    return DeferredCleanup(args)
