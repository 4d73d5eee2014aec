"""Keys typed for the message, not for a dialog that opened under them.

A permission dialog answers with single keys (`y`, `a`, `n`…) and Enter presses its focused
choice. A user still typing a message when one opens would answer it without having read it:
"and also…" pressed `a`, "Always allow", for a command never seen, and the rest of the words
were lost. So while the user keeps typing (no pause of `TYPING_PAUSE_S` since the input's last
key), the keys that write text go on into the input, as typed; once they pause, the dialog
takes its keys. Esc and Ctrl+C always reach the dialog (both refuse, the safe side).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual import events
    from textual.screen import Screen

    from wave_tui.tui.widgets.history_input import HistoryInput

TYPING_PAUSE_S = 0.8  # a pause this long means the user stopped typing and may read the dialog
READING_S = 0.3  # no one reads a dialog and answers it quicker than this
_TEXT_KEYS = frozenset({"enter", "backspace", "space"})


class AnswersByKey:
    """A dialog whose single keys answer it: typing meant for the message must not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.asked_at = time.monotonic()
        super().__init__(*args, **kwargs)


def type_through(screen: Screen[object], prompt: HistoryInput, event: events.Key) -> bool:
    """Send `event` to `prompt` instead of `screen` when the user is still typing there; True
    when it was taken."""
    if not isinstance(screen, AnswersByKey):
        return False
    now = time.monotonic()
    # Still typing, or just began to as it opened (quicker than anyone reads a dialog).
    if now - prompt.last_key_at >= TYPING_PAUSE_S and now - screen.asked_at >= READING_S:
        return False
    writes = event.is_printable or event.key in _TEXT_KEYS
    if not writes:
        return False
    prompt.take_typed_ahead(event.key, event.character if event.is_printable else None)
    return True
