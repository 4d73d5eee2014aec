"""The `wave daemon` wire format: one JSON object per line each way over the Unix socket.

A request is `{"op": NAME, ...}`; its answer `{"ok": true, ...}` or `{"ok": false, "error":
LINE}`. `wait` is answered only when its session stops being busy, on the same connection.
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal

# What a hosted session is doing; `wait` ends on every state but "busy".
DaemonState = Literal["idle", "busy", "waiting", "error"]

# `wave daemon wait` exit codes: the three ends of unattended monitoring.
WAIT_IDLE = 0
WAIT_FAILED = 1  # the turn failed, or the session was destroyed while waiting
WAIT_APPROVAL = 3

IDLE_ENV = "WAVE_DAEMON_IDLE_S"
# With no session left, the daemon lingers this long for the next `create`, then exits.
DEFAULT_IDLE_S = 300.0
MAX_LINE_BYTES = 16 * 1024 * 1024  # a request or an answer (a long reply) fits in one line

__all__ = [
    "DEFAULT_IDLE_S",
    "IDLE_ENV",
    "MAX_LINE_BYTES",
    "WAIT_APPROVAL",
    "WAIT_FAILED",
    "WAIT_IDLE",
    "DaemonState",
    "decode",
    "encode",
    "failure",
    "idle_seconds",
]


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"


# req: HR6
def decode(line: bytes) -> dict[str, Any]:
    """One line as an object; ValueError for anything else (nesting too deep to parse too)."""
    try:
        value = json.loads(line.decode("utf-8"))
    except RecursionError:
        raise ValueError("a daemon message nested too deep") from None
    if not isinstance(value, dict):
        raise ValueError("a daemon message is a JSON object")
    return value


def failure(error: str) -> dict[str, Any]:
    return {"ok": False, "error": error}


def idle_seconds(environ: dict[str, str] | None = None) -> float:
    """How long a daemon without sessions waits before it exits (`WAVE_DAEMON_IDLE_S`)."""
    raw = (environ if environ is not None else os.environ).get(IDLE_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_IDLE_S
    return value if value >= 0 else DEFAULT_IDLE_S
