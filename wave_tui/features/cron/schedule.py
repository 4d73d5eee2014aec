"""Cron expressions and `/loop` intervals: checked once, turned into the next run.

Only the five standard fields (minute hour day month weekday) in the local time zone: a sixth
(seconds) field would fire every second and is refused, as is an expression that never fires
(`0 0 30 2 *`). `croniter` is imported on first use, so a session that schedules nothing never
loads it.
"""

from __future__ import annotations

import re
from datetime import datetime

from wave_tui.config.records import record

CRON_FIELDS = 5
MIN_INTERVAL_S = 60  # `/loop` cannot repeat more often than once a minute
DEFAULT_INTERVAL = "10m"
_INTERVAL = re.compile(r"(\d+)([smhd])")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class ScheduleError(ValueError):
    """A cron expression or interval that cannot be scheduled: one clear line."""


def next_run(cron: str, after: datetime) -> datetime:
    """The first time `cron` fires after `after` (local time zone), as an aware datetime."""
    from croniter import (  # type: ignore[import-untyped]  # croniter ships no type hints
        CroniterBadCronError,
        CroniterBadDateError,
        croniter,
    )

    local = after.astimezone()
    try:
        found = croniter(cron, local).get_next(datetime)
    except CroniterBadDateError as exc:
        raise ScheduleError(f"cron {cron!r} never fires (no matching date)") from exc
    except (CroniterBadCronError, ValueError, KeyError) as exc:
        raise ScheduleError(f"invalid cron {cron!r}: {exc}") from exc
    if not isinstance(found, datetime):
        raise ScheduleError(f"invalid cron {cron!r}")
    return found


# req: CR1
def check_cron(cron: str, now: datetime) -> datetime:
    """`cron` as a 5-field expression that fires at some time: its next run after `now`."""
    fields = cron.split()
    if len(fields) != CRON_FIELDS:
        raise ScheduleError(
            f"cron {cron!r} must have 5 fields (minute hour day month weekday), "
            f"not {len(fields)}: wave schedules at most once a minute"
        )
    return next_run(" ".join(fields), now)


@record
class LoopRequest:
    """`/loop [interval] PROMPT` parsed: the cron it becomes, how it was asked, the prompt."""

    cron: str
    every: str
    prompt: str


def interval_cron(interval: str) -> tuple[str, str]:
    """`Ns|Nm|Nh|Nd` as a cron expression and a readable form; refused under a minute."""
    match = _INTERVAL.fullmatch(interval)
    if match is None:
        raise ScheduleError(f"malformed interval {interval!r}: use Ns, Nm, Nh or Nd (e.g. 5m)")
    seconds = int(match.group(1)) * _UNIT_S[match.group(2)]
    if seconds < MIN_INTERVAL_S:
        raise ScheduleError(
            f"interval {interval} is under a minute: /loop runs at most once a minute"
        )
    minutes = -(-seconds // 60)  # seconds round up to whole minutes
    if minutes < 60:
        return f"*/{minutes} * * * *", f"{minutes}m"
    if minutes % 60 == 0 and minutes < 24 * 60:
        hours = minutes // 60
        return f"0 */{hours} * * *", f"{hours}h"
    if minutes % (24 * 60) == 0:
        days = minutes // (24 * 60)
        return f"0 0 */{days} * *", f"{days}d"
    raise ScheduleError(
        f"interval {interval} is not a whole number of minutes under an hour, hours under a day, "
        "or days"
    )


# req: CR2
def parse_loop(args: str) -> LoopRequest:
    """`[interval] PROMPT`: a first word that starts with a digit is the interval (checked);
    otherwise every ten minutes."""
    words = args.strip().split(maxsplit=1)
    if not words:
        raise ScheduleError("usage: /loop [interval] PROMPT|/command (interval Ns|Nm|Nh|Nd)")
    interval, prompt = DEFAULT_INTERVAL, args.strip()
    if words[0][0].isdigit():
        interval, prompt = words[0], words[1] if len(words) > 1 else ""
    cron, every = interval_cron(interval)
    if not prompt.strip():
        raise ScheduleError("/loop needs a prompt or a /command after the interval")
    return LoopRequest(cron, every, prompt.strip())
