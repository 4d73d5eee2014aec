"""The checkpoint hook on the loop: before a Write/Edit runs, the file as it was is kept.

A `ToolPreparer` (after the call's checks, answer and locks, right before the tool): the first
write of a file in a user turn records its prior bytes (or its absence) for that turn; a
`ToolObserver` notes what the tool left (the hash of the bytes the tool wrote, never the disk
after other observers ran: a language server's wait is time enough for the user to edit the file),
so a rewind can tell a file changed elsewhere since.
As a `SessionObserver` it keeps this process's running marker on the session in use, and notes
the model each turn ran with (`wave sessions list`). Changes made by Bash are not tracked.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from wave_tui.agent.extensions import (
    SessionObserverBase,
    ToolCallInfo,
    ToolOutcome,
    TurnObserverBase,
    TurnStart,
)
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import EffectiveSettings
from wave_tui.features.rewind.names import note_cwd
from wave_tui.features.rewind.running import RunningMarker
from wave_tui.features.rewind.store import (
    CheckpointStore,
    read_session_meta,
    read_state,
    write_session_meta,
)
from wave_tui.llm.types import Message

CAP_NOTE = (
    "This session's checkpoints reached {mib} MiB: later edits are not checkpointed, and "
    "/rewind cannot put those files back."
)


def turn_of(messages: list[Message]) -> str:
    """The id of the user message whose turn is running (the last of the user's own)."""
    for message in reversed(messages):
        if message.role == "user" and not message.is_meta and message.kind == "normal":
            return message.id
    return ""


def _note_after(store: CheckpointStore, path: Path, sha: str | None) -> None:
    if sha is not None:
        store.record_written(path, sha)
    else:  # a tool that does not say what it wrote: the disk now is the best guess
        store.record("after", path, read_state(path))


# req: RW1
class CheckpointHook(TurnObserverBase, SessionObserverBase):
    def __init__(
        self,
        paths: WavePaths,
        *,
        session_id: Callable[[], str],
        messages: Callable[[], list[Message]],
        model: Callable[[], str | None],
        notify: Callable[[str, str], None],
    ) -> None:
        self._paths = paths
        self._session_id = session_id
        self._messages = messages
        self._model = model
        self._notify = notify
        self._stores: dict[str, CheckpointStore] = {}
        self._seen: set[tuple[str, str, Path]] = set()  # (session, turn, path) kept already
        self._cap_noted: set[str] = set()
        self._marker = RunningMarker(paths)

    def store(self, session_id: str) -> CheckpointStore:
        store = self._stores.get(session_id)
        if store is None:
            store = self._stores[session_id] = CheckpointStore(
                self._paths.checkpoint_dir(session_id)
            )
        return store

    def _target(self, call: ToolCallInfo) -> Path | None:
        return call.facts.target if call.row.writes_paths else None

    async def before_run(self, call: ToolCallInfo) -> None:
        path = self._target(call)
        if path is None:
            return
        session, turn = self._session_id(), turn_of(self._messages())
        key = (session, turn, path)
        if key in self._seen:
            return  # the turn's checkpoint of this file is what it was before the first write
        store = self.store(session)
        kept = await asyncio.to_thread(lambda: store.record("before", path, read_state(path), turn))
        self._seen.add(key)
        if not kept and session not in self._cap_noted:
            self._cap_noted.add(session)
            self._notify("warning", CAP_NOTE.format(mib=store.cap_bytes // (1024 * 1024)))

    # req: FH1
    async def after_tool(self, outcome: ToolOutcome) -> None:
        if outcome.result.is_error:
            return
        store = self.store(self._session_id())
        written = outcome.result.written_hashes
        for path in outcome.result.written_paths:
            await asyncio.to_thread(_note_after, store, path, written.get(path))

    async def on_turn_start(self, prompt: str) -> TurnStart:
        session, model = self._session_id(), self._model()
        self._marker.mark(session)
        folder = self._paths.checkpoint_dir(session)

        def note_model() -> None:
            if model and read_session_meta(folder).get("model") != model:
                # What `wave sessions list` shows: never worth failing a turn over.
                with contextlib.suppress(OSError):
                    write_session_meta(folder, model=model)
            note_cwd(self._paths, session)  # where a resume from another project opens it

        await asyncio.to_thread(note_model)
        return await super().on_turn_start(prompt)

    def on_settings(self, settings: EffectiveSettings) -> None:
        self._marker.mark(self._session_id())

    def on_messages_restored(self, messages: list[Message]) -> None:
        self._marker.mark(self._session_id())

    async def aclose(self) -> None:
        self._marker.clear()
