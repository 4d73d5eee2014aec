"""The conversation: its messages, their transcript, restore and the read state they imply.

One job: keep `messages` and the on-disk transcript in step (append, restore on --continue /
--resume, close orphan tool calls, replace after compaction, start afresh on /clear), and keep
the read state a resumed session needs (N1, N7 across processes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.compaction import recent_read_files
from wave_tui.agent.events import Emit
from wave_tui.agent.prompts import ABORTED_TOOL_RESULT
from wave_tui.agent.session_files import (
    full_thread,
    latest_descendant,
    start_child_session,
    with_parent,
)
from wave_tui.agent.transcript import (
    FAILED_PROMPT_META,
    Transcript,
    latest_session_id,
    new_session_id,
    transcript_for,
)
from wave_tui.config.paths import WavePaths
from wave_tui.files.read_state import ReadEntry, ReadState, content_hash
from wave_tui.llm.types import Message
from wave_tui.llm.wire import JOINS_NEXT

# What an interrupted turn leaves for the model (Claude Code's words): read before the next prompt.
INTERRUPTED_NOTE = "[Request interrupted by user]"
READ_META = "read"  # tool-message meta: [{path, sha256, mtimeNs}] of files seen in full
FORGOTTEN_META = "readForgotten"  # change-notice meta: [path] no longer in the read state


class Conversation:
    def __init__(self, paths: WavePaths, emit: Emit) -> None:
        self.paths = paths
        self._emit = emit
        self.read_state = ReadState()
        self.messages: list[Message] = []
        self.session_id = new_session_id()
        self.transcript: Transcript = transcript_for(paths, self.session_id)

    # -- restore -------------------------------------------------------------------------------
    # req: AC6
    def find_session(self, resume: str | None, continue_last: bool) -> str | None:
        """The session to restore (None: a new one). Raises FileNotFoundError for a bad id."""
        session = resume
        if session is None and continue_last:
            session = latest_session_id(self.paths)
        if session is None:
            return None
        if not transcript_for(self.paths, session).path.exists():
            raise FileNotFoundError(f"no session {session!r} for this project")
        # A compacted session lives on in its newest descendant.
        return latest_descendant(self.paths, session)

    # req: AC6
    # req: FH7
    def restore(self, session: str) -> None:
        """Load a session's messages, close its orphan tool calls, restore its read state."""
        self.session_id = session
        self.transcript = transcript_for(self.paths, session)
        self.messages = self.transcript.load(warn=lambda w: self._emit(ev.Notice("warning", w)))
        self.close_orphan_tool_calls(live=False)
        # What was read before (another session, or the turns a rewind cut off) is not in these
        # messages: left in, a Read would answer "unchanged" for content the model never saw.
        self.read_state.clear()
        self._restore_read_state()

    def full_thread(self) -> list[Message]:
        """Every message of this conversation across compactions, oldest first."""
        return full_thread(self.paths, self.session_id)

    # -- messages ------------------------------------------------------------------------------
    def add(self, message: Message) -> None:
        self.messages.append(message)
        self.transcript.append(message)
        if message.is_meta:
            self._emit(ev.MetaMessageAdded(message))

    # req: AC8
    def close_orphan_tool_calls(self, *, live: bool) -> None:
        """Give every tool call without a result an "interrupted" result, so history stays valid."""
        answered = {m.tool_call_id for m in self.messages if m.role == "tool"}
        for index, message in enumerate(list(self.messages)):
            if message.role != "assistant":
                continue
            for call in message.tool_calls:
                if call.id in answered:
                    continue
                result = Message(
                    role="tool",
                    content=ABORTED_TOOL_RESULT,
                    tool_call_id=call.id,
                    tool_name=call.name,
                )
                answered.add(call.id)
                if live:  # a turn in progress: the UI's tool block must not stay "running"
                    self._emit(
                        ev.ToolFinished(
                            call.id, call.name, "interrupted", ABORTED_TOOL_RESULT, True
                        )
                    )
                position = index + 1
                while position < len(self.messages) and self.messages[position].role == "tool":
                    position += 1
                self.messages.insert(position, result)
                self.transcript.append(result)

    # req: CV3
    def record_interruption(self) -> None:
        """The turn was interrupted: a note the model reads before the next prompt (it joins
        that prompt's message on the wire, never the abandoned one)."""
        self.add(Message.user(INTERRUPTED_NOTE, is_meta=True, **{JOINS_NEXT: True}))

    # req: CV4
    def take_back(self, prompt: list[Message], error: str) -> bool:
        """A prompt (and the context added with it) whose request failed before the model
        answered leaves the conversation: the transcript marks it failed, so neither the next
        request nor a resumed session sends it again. False when the model had answered."""
        ids = {m.id for m in prompt}
        start = next((i for i, m in enumerate(self.messages) if m.id in ids), None)
        if start is None or any(m.role == "assistant" for m in self.messages[start:]):
            return False
        self.messages = [m for m in self.messages if m.id not in ids]
        marker = Message.user("", is_meta=True, **{FAILED_PROMPT_META: sorted(ids), "error": error})
        self.transcript.append(marker)
        return True

    def clear(self) -> None:
        """Start a new, empty session (the old transcript stays on disk)."""
        self.session_id = new_session_id()
        self.transcript = transcript_for(self.paths, self.session_id)
        self.messages = []
        self.read_state.clear()

    # req: CP3
    def replace_after_compaction(self, new_messages: list[Message]) -> None:
        """Continue in a child session that starts with the summary (linked to its parent)."""
        parent = self.session_id
        self.transcript = start_child_session(self.paths, parent, new_messages)
        self.session_id = self.transcript.session_id
        self.messages = [with_parent(new_messages[0], parent), *new_messages[1:]]
        self._reseed_read_state()

    # -- read state ----------------------------------------------------------------------------
    def read_signatures(self, paths: list[Path]) -> list[dict[str, Any]]:
        """What the model has seen in full, kept in the transcript so a resumed session can
        still tell it which of those files changed since (N1, N7 across processes)."""
        out = []
        for path in paths:
            entry = self.read_state.get(path)
            if entry is not None and entry.is_full:
                out.append({"path": str(path), "sha256": entry.sha256, "mtimeNs": entry.mtime_ns})
        return out

    # req: N7
    # req: UX10
    def _restore_read_state(self) -> None:
        for message in self.messages:
            for gone in message.meta.get(FORGOTTEN_META, []):
                self.read_state.forget(Path(gone))
            for seen in message.meta.get(READ_META, []):
                try:
                    entry = ReadEntry(
                        Path(seen["path"]),
                        None,
                        seen["sha256"],
                        int(seen["mtimeNs"]),
                        origin="notice",
                    )
                except (KeyError, TypeError, ValueError):
                    continue
                self.read_state.record(entry)

    def _reseed_read_state(self) -> None:
        """After compaction the model saw only the restored excerpts: start the read state anew
        from them, marked as not shown in full (a re-Read returns the file, not "unchanged")."""
        restored = recent_read_files(self.read_state)
        self.read_state.clear()
        for path, content in restored:
            try:
                mtime = path.stat().st_mtime_ns
            except OSError:
                continue
            self.read_state.record(
                ReadEntry(path, content, content_hash(content), mtime, origin="notice")
            )
