"""Staleness reminder for memory files (T1, T2, T4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from wave_tui.memory.staleness import (
    memory_age_days,
    staleness_reminder,
    staleness_summary,
)


def with_staleness_reminder(content: str, mtime_s: float, now: datetime) -> str:
    """`content` with the reminder in front (own line) when one is due, as a memory read shows it."""
    reminder = staleness_reminder(mtime_s, now)
    return content if reminder is None else f"{reminder}\n{content}"


NOW = datetime(2026, 11, 29, 10, 0, 0, tzinfo=UTC)

T1_10_DAYS = (
    "<system-reminder>This memory is 10 days old. Memories are point-in-time observations, not "
    "live state — claims about code behavior or file:line citations may be outdated. Verify "
    "against current code before asserting as fact.</system-reminder>"
)


def _ago(**delta: float) -> float:
    return (NOW - timedelta(**delta)).timestamp()


@pytest.mark.req("T1")
def test_t1_exact_text_for_10_days() -> None:
    assert staleness_reminder(_ago(days=10, hours=3), NOW) == T1_10_DAYS


@pytest.mark.req("T1")
def test_t1_age_is_floor_of_whole_days() -> None:
    assert memory_age_days(_ago(days=2, seconds=-1), NOW) == 1
    assert memory_age_days(_ago(days=2), NOW) == 2
    assert memory_age_days(_ago(days=2, hours=23, minutes=59), NOW) == 2


@pytest.mark.req("T2")
def test_t2_today_and_yesterday_get_no_reminder() -> None:
    assert staleness_reminder(_ago(hours=1), NOW) is None
    assert staleness_reminder(_ago(days=1, hours=23), NOW) is None
    assert staleness_reminder(_ago(days=2), NOW) is not None


@pytest.mark.req("T2")
def test_t2_future_mtime_counts_as_today() -> None:
    assert memory_age_days(_ago(days=-5), NOW) == 0
    assert staleness_reminder(_ago(days=-5), NOW) is None


@pytest.mark.req("T4")
def test_t4_byte_identical_repeats() -> None:
    mtime = _ago(days=30)
    first = staleness_reminder(mtime, NOW)
    later = staleness_reminder(mtime, NOW + timedelta(hours=5))
    assert first is not None and first == later
    assert first.encode() == later.encode()


@pytest.mark.req("T1")
def test_t1_prepended_to_content() -> None:
    assert with_staleness_reminder("body", _ago(days=10), NOW) == f"{T1_10_DAYS}\nbody"
    assert with_staleness_reminder("body", _ago(hours=2), NOW) == "body"


@pytest.mark.req("U3")
def test_u3_human_summary() -> None:
    assert staleness_summary("notes.md", 12) == "notes.md is 12 days old"
    assert staleness_summary("notes.md", 1) == "notes.md was updated yesterday"
    assert staleness_summary("notes.md", 0) == "notes.md was updated today"
    assert staleness_summary("", 12) == "memory is 12 days old"
