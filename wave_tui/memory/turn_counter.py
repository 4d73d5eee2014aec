"""When the extraction fork is due: every N completed turns while auto memory is on (S3, S4)."""

from __future__ import annotations

import threading

FREQUENCY_MIN = 1
FREQUENCY_MAX = 100


def clamp_frequency(frequency: int) -> int:
    return max(FREQUENCY_MIN, min(FREQUENCY_MAX, int(frequency)))


class TurnCounter:
    """Counts completed turns; settings changes take effect from the next turn end."""

    def __init__(self, frequency: int = 1, enabled: bool = True) -> None:
        self._lock = threading.Lock()
        self._frequency = clamp_frequency(frequency)
        self._enabled = enabled
        self._count = 0

    @property
    def enabled(self) -> bool:
        return self._enabled

    @property
    def frequency(self) -> int:
        return self._frequency

    # req: S3
    # req: S4
    def apply_settings(self, enabled: bool, frequency: int) -> None:
        """Re-enabling or changing the frequency restarts the count (S3, S4); same values: no-op."""
        frequency = clamp_frequency(frequency)
        with self._lock:
            if (enabled and not self._enabled) or frequency != self._frequency:
                self._count = 0
            self._enabled = enabled
            self._frequency = frequency

    def resume(self, turns_done: int) -> None:
        """Continue a resumed session's count: `turns_done` completed turns since its last
        extraction (a one-turn `wave -p --continue` run must still reach N eventually)."""
        with self._lock:
            self._count = max(0, turns_done) % self._frequency

    # req: S4
    def on_turn_end(self) -> bool:
        """Record one completed turn; True when extraction is due now (the count then resets)."""
        with self._lock:
            if not self._enabled:
                return False
            self._count += 1
            if self._count >= self._frequency:
                self._count = 0
                return True
            return False

    # req: MR4
    def take_pending(self) -> int:
        """Completed turns no extraction has seen yet; the count starts afresh (an extraction
        is about to see them: the memory flush before a compaction)."""
        with self._lock:
            pending, self._count = self._count, 0
            return pending if self._enabled else 0

    @property
    def turns_until_next(self) -> int | None:
        """Completed turns still needed before the next extraction; None while off."""
        with self._lock:
            if not self._enabled:
                return None
            return self._frequency - self._count
