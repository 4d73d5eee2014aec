"""Use counts: how often and when rules and path-scoped memories were loaded (MM6).

Cheap by design: a load appends one line `<ISO time>\t<entry id>` to an append-only log (one
`O_APPEND` write per batch of loads, no read, no rewrite, no lock: appends of a few KB are
atomic on local filesystems). Reading it adds the lines up. When the log grows past
`COMPACT_AFTER_BYTES` a reader folds it into one line per entry (`<last>\t<id>\t<count>`) under
the file's lock and atomically — the only rewrite, once in a long while.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from wave_tui.config.fileio import atomic_write_text, file_lock
from wave_tui.config.records import record

COMPACT_AFTER_BYTES = 4_000_000
NEVER_LOADED_DAYS = 30


# req: MM6
@record
class LoadCount:
    loads: int
    last_loaded: str | None  # ISO 8601, UTC


def _stamp(now: datetime) -> str:
    return now.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# req: MM6
def record_loads(log: Path, entry_ids: Iterable[str], now: datetime) -> None:
    """Append one line per loaded entry; a log that cannot be written is left alone."""
    stamp = _stamp(now)
    data = "".join(f"{stamp}\t{entry_id}\n" for entry_id in entry_ids if "\n" not in entry_id)
    if not data:
        return
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, data.encode("utf-8", "surrogatepass"))
        finally:
            os.close(fd)
    except OSError:
        pass


def _fold(text: str) -> dict[str, LoadCount]:
    loads: dict[str, int] = {}
    last: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) < 2 or not parts[1]:
            continue
        stamp, entry_id = parts[0], parts[1]
        try:
            n = int(parts[2]) if len(parts) > 2 else 1
        except ValueError:
            continue
        loads[entry_id] = loads.get(entry_id, 0) + n
        if stamp > last.get(entry_id, ""):
            last[entry_id] = stamp
    return {entry_id: LoadCount(n, last.get(entry_id)) for entry_id, n in loads.items()}


def read_loads(log: Path) -> dict[str, LoadCount]:
    """Loads and the last load of every entry id the log names."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    counts = _fold(text)
    if len(text) > COMPACT_AFTER_BYTES:
        _compact(log)
    return counts


def _compact(log: Path) -> None:
    try:
        with file_lock(log):
            counts = _fold(log.read_text(encoding="utf-8", errors="replace"))
            lines = [f"{c.last_loaded}\t{entry_id}\t{c.loads}\n" for entry_id, c in counts.items()]
            atomic_write_text(log, "".join(lines))
    except OSError:
        pass


# req: MM6
def never_loaded_recently(
    count: LoadCount | None, file_age_days: int | None, now: datetime
) -> bool:
    """No load seen in the last 30 days, and the file is older than that."""
    if file_age_days is None or file_age_days < NEVER_LOADED_DAYS:
        return False
    if count is None or count.last_loaded is None:
        return True
    try:
        last = datetime.fromisoformat(count.last_loaded.replace("Z", "+00:00"))
    except ValueError:
        return True
    return now - last > timedelta(days=NEVER_LOADED_DAYS)
