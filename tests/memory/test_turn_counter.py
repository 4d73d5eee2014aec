"""The extraction turn counter (S1, S3, S4)."""

from __future__ import annotations

import pytest

from wave_tui.memory.turn_counter import TurnCounter


def _run(counter: TurnCounter, turns: int) -> list[bool]:
    return [counter.on_turn_end() for _ in range(turns)]


@pytest.mark.req("S4")
def test_s4_default_every_turn() -> None:
    assert _run(TurnCounter(), 3) == [True, True, True]


@pytest.mark.req("S4")
def test_s4_every_n_turns() -> None:
    c = TurnCounter(frequency=3)
    assert c.turns_until_next == 3
    assert _run(c, 7) == [False, False, True, False, False, True, False]
    assert c.turns_until_next == 2


@pytest.mark.req("S4")
def test_s4_frequency_change_restarts_count() -> None:
    c = TurnCounter(frequency=3)
    _run(c, 2)
    c.apply_settings(True, 2)
    assert c.turns_until_next == 2
    assert _run(c, 2) == [False, True]


@pytest.mark.req("S4")
def test_s4_same_settings_do_not_restart() -> None:
    c = TurnCounter(frequency=3)
    _run(c, 2)
    c.apply_settings(True, 3)
    assert c.on_turn_end() is True


@pytest.mark.req("S4")
def test_s4_frequency_clamped_to_1_100() -> None:
    assert TurnCounter(frequency=0).frequency == 1
    assert TurnCounter(frequency=500).frequency == 100


@pytest.mark.req("S1")
def test_s1_off_never_due() -> None:
    c = TurnCounter(frequency=1, enabled=False)
    assert _run(c, 5) == [False] * 5
    assert c.turns_until_next is None


@pytest.mark.req("S3")
def test_s3_turns_while_off_do_not_count_and_reenable_restarts() -> None:
    c = TurnCounter(frequency=3)
    _run(c, 2)  # one short of due
    c.apply_settings(False, 3)
    assert _run(c, 10) == [False] * 10
    c.apply_settings(True, 3)
    assert c.turns_until_next == 3
    assert _run(c, 3) == [False, False, True]


@pytest.mark.req("S2")
def test_s2_switched_off_mid_way_stops_from_next_turn() -> None:
    c = TurnCounter(frequency=2)
    assert c.on_turn_end() is False
    c.apply_settings(False, 2)
    assert c.on_turn_end() is False
    assert c.enabled is False


@pytest.mark.req("S4")
def test_s4_a_resumed_session_continues_its_count() -> None:
    counter = TurnCounter(frequency=3)
    counter.resume(2)  # two turns since the session's last extraction
    assert counter.turns_until_next == 1
    assert counter.on_turn_end() is True
    counter.resume(7)
    assert counter.turns_until_next == 2
