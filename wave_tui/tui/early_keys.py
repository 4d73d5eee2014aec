"""Keys typed before the app is up are kept for it.

A user who types `wave`, Enter and goes straight on typing sends keys before Textual has put the
terminal in raw mode. In the terminal's cooked mode those keys were echoed, held until a line
ended, and Enter arrived as a line feed (the app's Ctrl+J: a newline, not a send), and the app
lost them. So the first thing the interactive command does is what Textual will do anyway: no
echo, no line editing, Enter kept as Enter. The keys then wait in the terminal's buffer and the
app reads them as typed. The terminal's own settings are what Textual puts back when it
suspends or ends (`hand_over`), and are put back at exit too.
"""

from __future__ import annotations

import atexit
import contextlib
import sys
from typing import Any

_before: list[Any] | None = None  # the terminal's settings before `hold_early_keys`


def hold_early_keys() -> None:
    """Raw-ish input on a terminal stdin, until the process ends (never raises)."""
    try:
        import termios

        fd = sys.stdin.fileno()
        if not sys.stdin.isatty():
            return
        before = termios.tcgetattr(fd)
        held = termios.tcgetattr(fd)
        global _before
        _before = before
        held[0] &= ~termios.ICRNL  # iflag: Enter stays \r
        held[3] &= ~(termios.ICANON | termios.ECHO)  # lflag: no line editing, no echo
        termios.tcsetattr(fd, termios.TCSANOW, held)
    except Exception:  # no termios, no terminal, a closed stdin: nothing to hold
        return

    def restore() -> None:
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)

    atexit.register(restore)


def hand_over(driver: object) -> None:
    """Give Textual's driver the terminal's own settings to put back (it read the held ones
    as "before"): a suspended or ended app leaves the shell with echo and line editing."""
    if _before is not None and hasattr(driver, "attrs_before"):
        driver.attrs_before = _before


def held_from_the_start() -> bool:
    """Whether this process held the terminal itself (the `wave` command): then a line feed
    among the keys read before the app was up is an Enter typed while it was still cooked."""
    return _before is not None
