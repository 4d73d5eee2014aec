"""Age of a memory file and the reminder prepended when reading an old one (T1–T5).

The text depends on the whole-day age only, never on the current time, so repeated reads give
byte-identical results and the prompt prefix stays cacheable (T4).
"""

from __future__ import annotations

import math
from datetime import datetime

DAY_MS = 86_400_000

STALENESS_TEMPLATE = (
    "<system-reminder>This memory is {days} days old. Memories are point-in-time observations, "
    "not live state — claims about code behavior or file:line citations may be outdated. Verify "
    "against current code before asserting as fact.</system-reminder>"
)


# req: T2
def memory_age_days(mtime_s: float, now: datetime) -> int:
    """floor((now − mtime) / 1 day) in milliseconds; negative (clock skew) counts as today."""
    now_ms = now.timestamp() * 1000
    days = math.floor((now_ms - mtime_s * 1000) / DAY_MS)
    return max(0, days)


# req: T1
# req: T4
def staleness_reminder(mtime_s: float, now: datetime) -> str | None:
    """The T1 reminder, or None when the memory is from today or yesterday (T2)."""
    days = memory_age_days(mtime_s, now)
    if days <= 1:
        return None
    return STALENESS_TEMPLATE.format(days=days)


def staleness_summary(name: str, days: int) -> str:
    """Short human wording for the UI, e.g. `notes.md is 12 days old`."""
    subject = name or "memory"
    if days <= 0:
        return f"{subject} was updated today"
    if days == 1:
        return f"{subject} was updated yesterday"
    return f"{subject} is {days} days old"
