"""A conversation rewind that can be undone: before the transcript is cut, the conversation as
it was is kept as a fork (`wave sessions list` shows it, its parent the rewound session), so
the rewound turns are one `/resume` away instead of gone."""

from __future__ import annotations

from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.rewind.catalog import fork_session
from wave_tui.features.rewind.rewind import check_conversation, rewind_conversation

KEPT_NOTE = "The conversation before the rewind is kept as session {id} (/resume, wave sessions)."


@record
class ConversationRewind:
    text: str  # the message's text, for the input
    kept_as: str  # the fork holding the conversation as it was


# req: FH9
def rewind_conversation_kept(paths: WavePaths, session_id: str, n: int) -> ConversationRewind:
    """Fork the session, then cut its transcript just before user message `n`."""
    check_conversation(paths, session_id, n)  # nothing is forked for a rewind that cannot be
    kept = fork_session(paths, session_id)
    return ConversationRewind(rewind_conversation(paths, session_id, n), kept)
