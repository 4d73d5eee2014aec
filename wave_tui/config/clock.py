"""The clock every part reads the time from: a callable, so tests can freeze it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Now, in UTC (what every timestamp wave writes is in)."""
    return datetime.now(UTC)
