"""Fitting a compaction to the model's window (CV11): how many rounds stay verbatim, how long
the summary may be, and how much restoration the next request can still carry.

Every figure is in estimated tokens (`llm.usage`), the unit `ContextWindows.budget()` gives the
room in: the instructions and tools of the next request are counted by the caller, the compacted
messages here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from wave_tui.agent.restoration import cap_to_tokens
from wave_tui.config.records import record
from wave_tui.llm.types import Message
from wave_tui.llm.usage import estimate_tokens
from wave_tui.llm.wire import message_to_wire

KEPT_SHARE = 0.5  # of the room, at most, for the rounds kept verbatim
SUMMARY_SHARE = 0.6  # of what the kept rounds leave, for the summary (the rest: restoration)
MIN_SUMMARY_TOKENS = 128
MIN_ROOM = 2 * MIN_SUMMARY_TOKENS + 200  # less room than this: no compaction can fit
SUMMARY_CUT = "summary cut to fit the context window"


@record
class Budget:
    """What a compaction's result may take, in estimated tokens."""

    room: int  # the compacted messages (summary block and kept rounds) in the next request
    summary: int | None = None  # the summary model's own request, its reply included


def wire_tokens(messages: Sequence[Message]) -> int:
    """Estimated tokens of `messages` as the request carries them (counted like a body)."""
    wire = [message_to_wire(m) for m in messages]
    return estimate_tokens(json.dumps(wire, ensure_ascii=False, separators=(",", ":")))


def fitting_keep_rounds(rounds: Sequence[Sequence[Message]], keep_rounds: int, room: int) -> int:
    """The most rounds (up to `keep_rounds`) that stay verbatim within `KEPT_SHARE` of the room;
    a round too big for it is summarised instead (a big file just read, on a small window)."""
    while keep_rounds > 0:
        kept = [m for r in rounds[-keep_rounds:] for m in r if m.kind != "compress"]
        if wire_tokens(kept) <= room * KEPT_SHARE:
            return keep_rounds
        keep_rounds -= 1
    return 0


def summary_cap(available: int, maximum: int) -> int:
    """The summary's output limit when `available` tokens are left after the kept rounds."""
    return max(MIN_SUMMARY_TOKENS, min(maximum, int(available * SUMMARY_SHARE)))


def fit_summary(
    summary: str,
    kept: Sequence[Message],
    room: int,
    restoration: Callable[[int | None], str],
    make: Callable[[str, str], Message],
) -> Message | None:
    """The compress block for `summary` whose restoration takes what `room` leaves once the
    summary and the kept rounds are counted; the summary itself is cut when it alone would not
    leave room for the restoration's state lines. None: not even that fits."""
    available = room - wire_tokens(kept)
    floor = restoration(0)  # the state lines and the note naming what was left out
    floor_tokens = wire_tokens([make("", floor)])
    if available < floor_tokens + MIN_SUMMARY_TOKENS:
        return None
    if wire_tokens([make(summary, floor)]) > available:
        # JSON escapes make the wire a little longer than the text: cut with a margin.
        summary = cap_to_tokens(summary, int((available - floor_tokens) * 0.85), SUMMARY_CUT)
    limit = available - wire_tokens([make(summary, "")])
    for _ in range(4):
        message = make(summary, restoration(max(0, limit)))
        over = wire_tokens([message]) - available
        if over <= 0:
            return message
        limit -= over + 16
    message = make(summary, floor)
    return message if wire_tokens([message]) <= available else None
