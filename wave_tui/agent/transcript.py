"""Session transcripts: append-only JSONL under ~/.wave/projects/<project-id>/."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from wave_tui.config.paths import WavePaths
from wave_tui.llm.types import Message

# The meta key of a marker line: the ids of a prompt (and its context) whose request failed before
# the model answered. Both the marker and those messages are left out when the file is loaded.
FAILED_PROMPT_META = "failedPrompt"


def new_session_id() -> str:
    return str(uuid.uuid4())


# req: AC6
class Transcript:
    """One session's file. Each message is flushed as soon as it is complete."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # Our own appends always end in a newline: the tail needs checking once per instance.
        self._tail_checked = False

    @property
    def session_id(self) -> str:
        return self.path.stem

    @property
    def corrupt_path(self) -> Path:
        """Where a torn last line is kept when it is cut off the transcript (X7)."""
        return self.path.with_name(self.path.name + ".corrupt")

    def append(self, message: Message) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = message.to_json_line()
        if not self._tail_checked:
            self._trim_torn_tail()
            self._tail_checked = True
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()

    def _trim_torn_tail(self) -> None:  # req: X7
        """A crash mid-line leaves a fragment without its newline; the next line would be glued
        onto it and lost. Move the fragment to the `.corrupt` side file and cut it off."""
        try:
            with open(self.path, "rb+") as fh:
                end = fh.seek(0, os.SEEK_END)
                if end == 0:
                    return
                fh.seek(end - 1)
                if fh.read(1) == b"\n":
                    return
                start = _last_line_start(fh, end)
                fh.seek(start)
                fragment = fh.read()
                with open(self.corrupt_path, "ab") as side:
                    side.write(fragment + b"\n")
                    side.flush()
                    os.fsync(side.fileno())
                fh.truncate(start)
        except FileNotFoundError:
            return

    def load(self, warn: Callable[[str], None] | None = None) -> list[Message]:
        """Every valid message; a corrupt line is skipped with a warning, never fatal."""
        messages: list[Message] = []
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return messages
        skipped: list[tuple[int, str]] = []
        # Split on b"\n" only: str.splitlines would also cut at U+2028 & co inside a message.
        for number, raw_line in enumerate(raw.split(b"\n"), 1):
            if not raw_line.strip():
                continue
            try:
                # Parsed and validated in one step by pydantic (~70 % of json.loads + validate).
                messages.append(Message.model_validate_json(raw_line))
                continue
            except ValidationError:
                pass  # read again the lenient way: bad UTF-8 replaced, json's own error text
            line = raw_line.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            try:
                messages.append(Message.model_validate(json.loads(line)))
            except (ValueError, ValidationError) as exc:
                skipped.append((number, str(exc).splitlines()[0][:120]))
        if warn and skipped:
            # One line per file, however many lines are corrupt (a binary file has hundreds).
            number, problem = skipped[0]
            many = f"{len(skipped)} corrupt lines, the first: line" if len(skipped) > 1 else ""
            warn(f"{self.path.name}: skipped {many or 'corrupt line'} {number}: {problem}")
        return without_failed_prompts(messages)


# req: CV4
def without_failed_prompts(messages: list[Message]) -> list[Message]:
    """The conversation as the model may see it again: failed prompts and their markers out."""
    markers = [m.meta[FAILED_PROMPT_META] for m in messages if FAILED_PROMPT_META in m.meta]
    if not markers:
        return messages
    failed = {str(i) for ids in markers if isinstance(ids, list) for i in ids}
    return [m for m in messages if m.id not in failed and FAILED_PROMPT_META not in m.meta]


_TAIL_CHUNK = 64 * 1024


def _last_line_start(fh: BinaryIO, end: int) -> int:
    """Offset just after the last newline before `end` (0 when there is none)."""
    pos = end
    while pos > 0:
        step = min(_TAIL_CHUNK, pos)
        fh.seek(pos - step)
        chunk = fh.read(step)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            return pos - step + newline + 1
        pos -= step
    return 0


def session_files(paths: WavePaths) -> list[Path]:
    """This project's transcripts, most recently active first."""
    folder = paths.project_dir
    try:
        files = [p for p in folder.glob("*.jsonl") if p.is_file()]
    except OSError:
        return []
    return sorted(files, key=lambda p: p.stat().st_mtime_ns, reverse=True)


def latest_session_id(paths: WavePaths) -> str | None:
    files = session_files(paths)
    return files[0].stem if files else None


def transcript_for(paths: WavePaths, session_id: str) -> Transcript:
    if os.sep in session_id or session_id.startswith("."):
        raise ValueError(f"not a session id: {session_id!r}")
    return Transcript(paths.transcript(session_id))
