"""What the embedded JavaScript engine's driver reads back from a script after each step (its
host calls, console lines, how it ended), checked field by field before the host acts on it.

The outbox is built inside the script's own realm, so a script can replace what builds it
(`JSON.stringify`, `Array.prototype.push`, a `toJSON` getter) and hand over anything: the host
only ever takes calls to the functions it offered, with JSON arguments, and a JSON result.
"""

from __future__ import annotations

import json
from typing import Any

from wave_tui.config.records import record

TAMPERED = "the script tampered with the sandbox's plumbing ({what})"


class OutboxTampered(Exception):
    """The outbox is not what the sandbox writes: the run ends with this text."""


@record
class Call:
    id: int
    index: int  # which host function, by its place in the table the run was given
    args: Any  # parsed JSON


@record
class Outbox:
    calls: list[Call]
    logs: list[str]
    cut: bool
    outcome: tuple[bool, str] | None  # (returned?, the value as JSON or the error's text)


def _bad(what: str) -> OutboxTampered:
    return OutboxTampered(TAMPERED.format(what=what))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _call(raw: Any, functions: int) -> Call:
    if not isinstance(raw, list) or len(raw) != 3:
        raise _bad("a host call is not [id, function, arguments]")
    call_id, index, args = raw
    if not _is_int(call_id) or not _is_int(index) or not 0 <= index < functions:
        raise _bad("a host call names no function the host offered")
    if not isinstance(args, str):
        raise _bad("a host call's arguments are not JSON text")
    try:
        parsed = json.loads(args)
    except ValueError:
        raise _bad("a host call's arguments are not JSON") from None
    return Call(call_id, index, parsed)


def _outcome(raw: Any) -> tuple[bool, str] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 2:
        raise _bad("the outcome is not [ok, text]")
    ok, text = raw
    if not isinstance(ok, bool) or not isinstance(text, str):
        raise _bad("the outcome is not [ok, text]")
    if ok:
        try:
            json.loads(text)
        except ValueError:
            raise _bad("the returned value is not JSON") from None
    return ok, text


# req: EX2
def read_outbox(raw: Any, functions: int) -> Outbox:
    """The checked outbox from `__wave_take()`'s value; `functions`: how many the host offered."""
    if not isinstance(raw, str):
        raise _bad("the outbox is not text")
    try:
        taken = json.loads(raw)
    except ValueError:
        raise _bad("the outbox is not JSON") from None
    if not isinstance(taken, dict):
        raise _bad("the outbox is not an object")
    calls, logs, cut = taken.get("calls"), taken.get("logs"), taken.get("cut")
    if not isinstance(calls, list) or not isinstance(logs, list) or not isinstance(cut, bool):
        raise _bad("the outbox lacks its calls, logs or cut flag")
    if not all(isinstance(line, str) for line in logs):
        raise _bad("a console line is not text")
    return Outbox(
        [_call(c, functions) for c in calls], list(logs), cut, _outcome(taken.get("outcome"))
    )
