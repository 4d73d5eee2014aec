"""Assembling a streamed reply: tool calls from deltas, inline `<think>` split from the answer."""

from __future__ import annotations

import json
import random
from dataclasses import field
from typing import Any

from wave_tui.config.records import record
from wave_tui.llm.types import ToolCall

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


@record(frozen=False)
class _Call:
    index: int  # position in the reply, not the server's `index`
    id: str = ""
    name: str = ""
    # Fragments collected and joined once: linear in the argument size.
    # req: X8
    fragments: list[str] = field(default_factory=list)


class ToolCallAssembler:
    """Turns `tool_calls` deltas into calls, whatever the server's habits (req: PV4):
    all deltas at index 0 with distinct ids (Ollama) are separate calls, a delta without an
    index continues the last call, a name repeated in every delta is kept once."""

    def __init__(self) -> None:
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}

    def add(self, delta: dict[str, Any]) -> tuple[int, str | None, str]:
        raw_index = delta.get("index")
        call_id = delta.get("id") if isinstance(delta.get("id"), str) else ""
        call = self._target(raw_index if isinstance(raw_index, int) else None, call_id or "")
        if call_id:
            call.id = call_id
        function = delta.get("function")
        function = function if isinstance(function, dict) else {}
        name = function.get("name")
        if isinstance(name, str) and name and name != call.name:
            call.name = name if not call.name else call.name + name  # a name split in pieces
        fragment = function.get("arguments")
        if not isinstance(fragment, str):
            fragment = json.dumps(fragment) if isinstance(fragment, dict) else ""
        if fragment:
            call.fragments.append(fragment)
        return call.index, call.name or None, fragment

    # req: PV4
    def _target(self, index: int | None, call_id: str) -> _Call:
        if index is None:
            if self._calls and not (
                call_id and self._calls[-1].id and call_id != self._calls[-1].id
            ):
                return self._calls[-1]
            index = len(self._calls)
        current = self._by_index.get(index)
        if current is not None and not (call_id and current.id and call_id != current.id):
            return current
        call = _Call(index=len(self._calls))
        self._calls.append(call)
        self._by_index[index] = call
        return call

    def calls(self) -> list[ToolCall]:
        out = []
        for position, call in enumerate(self._calls):
            call_id = call.id or f"call_{position}_{random.randrange(1 << 30):x}"
            out.append(
                ToolCall(id=call_id, name=call.name, arguments=repair_arguments(call.fragments))
            )
        return out


# req: PV5
def repair_arguments(fragments: list[str] | str) -> str:
    """The call's JSON arguments; broken JSON repaired when that yields an object (req: PV5).

    What cannot be repaired is kept as sent: the tool runner answers the model with an
    "Invalid arguments" tool error, never a crash."""
    raw = fragments if isinstance(fragments, str) else "".join(fragments)
    if not raw.strip():
        return "{}"
    try:
        json.loads(raw)
        return raw
    except ValueError:
        pass
    import json_repair  # only broken arguments pay for loading the repairer

    try:
        repaired = json_repair.loads(raw)
    except Exception:  # the repairer is best-effort; any failure means "keep the raw text"
        return raw
    if isinstance(repaired, dict) and repaired:
        return json.dumps(repaired, ensure_ascii=False)
    return raw


class ThinkSplitter:
    """Splits inline `<think>…</think>` at the start of the content into reasoning (req: PV3).

    Works on stream pieces: a tag cut across two deltas is still recognised."""

    def __init__(self) -> None:
        self._state: str = "start"  # start → thinking → gap → answer
        self._pending = ""

    def feed(self, piece: str) -> list[tuple[str, str]]:
        """(kind, text) pairs for this piece, kind "reasoning" or "text"."""
        out: list[tuple[str, str]] = []
        self._pending += piece
        if self._state == "start":
            stripped = self._pending.lstrip()
            if THINK_OPEN.startswith(stripped) and len(stripped) < len(THINK_OPEN):
                return out  # could still become the opening tag
            if stripped.startswith(THINK_OPEN):
                self._state = "thinking"
                self._pending = stripped[len(THINK_OPEN) :]
            else:
                self._state = "answer"
        if self._state == "thinking":
            end = self._pending.find(THINK_CLOSE)
            if end < 0:
                keep = _partial_suffix(self._pending, THINK_CLOSE)
                thought = self._pending[: len(self._pending) - keep]
                self._pending = self._pending[len(self._pending) - keep :]
                if thought:
                    out.append(("reasoning", thought))
                return out
            if end:
                out.append(("reasoning", self._pending[:end]))
            self._pending = self._pending[end + len(THINK_CLOSE) :]
            self._state = "gap"
        if self._state == "gap":  # the blank lines between the closing tag and the answer
            self._pending = self._pending.lstrip()
            if self._pending:
                self._state = "answer"
        if self._state == "answer" and self._pending:
            out.append(("text", self._pending))
            self._pending = ""
        return out

    def flush(self) -> list[tuple[str, str]]:
        rest, self._pending = self._pending, ""
        if not rest:
            return []
        if self._state == "gap":
            return []
        return [("reasoning" if self._state == "thinking" else "text", rest)]


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of `text` that is a start of `tag`."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


def split_think(content: str) -> tuple[str, str]:
    """(reasoning, answer) of a whole, non-streamed content."""
    splitter = ThinkSplitter()
    parts = splitter.feed(content) + splitter.flush()
    reasoning = "".join(t for k, t in parts if k == "reasoning")
    answer = "".join(t for k, t in parts if k == "text")
    return reasoning, answer
