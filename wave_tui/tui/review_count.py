"""Memory proposals waiting for review (`autoMemoryReview`): their count in the status line, and
a toast when the extraction fork adds some, saying how to reach the inbox."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from wave_tui.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from wave_tui.tui.app import WaveApp

WORKER_GROUP = "review-count"
# The memory browser may open with its filter focused, where `i` types a letter: Esc first
# puts the focus on the list, where `i` opens the inbox (and is harmless when it is there).
INBOX_KEYS = "F2, Esc, i"


class ReviewCount:
    def __init__(self, app: WaveApp) -> None:
        self.app = app
        self.pending = 0  # as last counted

    def count(self) -> None:
        """Count the inbox again and show the count (after a change that may have emptied it)."""
        if not self.app.session_ready:
            return  # counted once the session is up
        self.app.run_worker(
            self._count(), group=WORKER_GROUP, exit_on_error=False, name="counting memory proposals"
        )

    # req: MX8
    def announce(self) -> None:
        """After an extraction: the count, and a toast when the fork added proposals."""
        self.app.run_worker(
            self._announce(),
            group=WORKER_GROUP,
            exit_on_error=False,
            name="counting memory proposals",
        )

    def screen_changed(self, screen: Screen[Any]) -> None:
        # Back from the inbox (F2, i): what was accepted or rejected there has left it.
        if screen is self.app.chat_screen:
            self.count()

    async def _count(self) -> int:
        """Returns how many more wait than at the last count."""
        count = len(await self.app.session.memory.inbox())
        added = count - self.pending
        self.pending = count
        for line in self.app.chat_screen.query(StatusLine):
            line.update_info(review_pending=count)
        return added

    async def _announce(self) -> None:
        if await self._count() > 0:
            self.app.notify(review_toast(self.pending), title="Memory")


def review_toast(count: int) -> str:
    proposals, wait = ("proposal", "waits") if count == 1 else ("proposals", "wait")
    return f"{count} memory {proposals} {wait} for review: {INBOX_KEYS} opens the inbox"
