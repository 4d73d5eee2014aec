"""Compaction you can see (MM7): what a prepared compaction keeps and drops, its summary draft,
the draft edited before it is applied, and the record of what was dropped.

A `/compact` in the app prepares the summary first and shows this preview; Enter applies it, `e`
edits the summary, Esc cancels and the conversation stays as it was. Every compaction, previewed
or not, records in its summary message's meta (`compaction`) one line per message it dropped,
so the transcript says what went and `wave sessions show` can list it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wave_tui.agent.restoration import RESTORATION_HEADING
from wave_tui.config.records import record
from wave_tui.llm.types import Message

LINE_CHARS = 100  # each kept or dropped message is described on one line of this length
META_COMPACTION = "compaction"


# req: MM7
@record
class CompactionPreview:
    """What the preview shows: the messages kept verbatim, those summarised away, the draft."""

    kept: list[str]
    dropped: list[str]
    summary: str


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def describe_message(message: Message) -> str:
    """One line naming a message: who said it and how it starts."""
    if message.kind == "compress":
        return "earlier summary: " + _one_line(message.content)
    if message.role == "tool":
        return f"tool result ({message.tool_name or 'tool'}): {_one_line(message.content)}"
    if message.role == "assistant":
        calls = ", ".join(call.name for call in message.tool_calls)
        text = _one_line(message.content)
        if calls:
            return f"assistant: {text} [calls {calls}]" if text else f"assistant: calls {calls}"
        return f"assistant: {text}"
    if message.is_meta:
        return "context: " + _one_line(message.content)
    return "you: " + _one_line(message.content)


def dropped_messages(before: Sequence[Message], kept: Sequence[Message]) -> list[Message]:
    """The messages of `before` that the compaction does not keep verbatim."""
    kept_ids = {m.id for m in kept}
    return [m for m in before if m.id not in kept_ids]


def with_edited_summary(compress: Message, old_summary: str, summary: str) -> Message:
    """The summary message with `summary` in place of the draft; the restoration after it (the
    files, plan and skills brought back) stays as it was."""
    content = compress.content
    at = content.find(RESTORATION_HEADING)
    if content.startswith(old_summary.strip()):
        rest = content[len(old_summary.strip()) :].lstrip("\n")
    else:  # the draft was cut to fit the window: keep whatever follows it
        rest = content[at:] if at >= 0 else ""
    text = summary.strip()
    return compress.model_copy(update={"content": f"{text}\n\n{rest}" if rest else text})


# req: MM7
def with_dropped_record(compress: Message, dropped: Sequence[str], kept: int) -> Message:
    """The summary message carrying the record of what this compaction dropped."""
    record_meta: dict[str, Any] = {"dropped": list(dropped), "kept": kept}
    return compress.model_copy(update={"meta": {**compress.meta, META_COMPACTION: record_meta}})
