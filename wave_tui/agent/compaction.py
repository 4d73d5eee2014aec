"""Conversation compaction: when a session outgrows the model's input budget, the older history is
replaced by a fast-model summary (a `compress` block) and the last API rounds are kept verbatim.

Pure pieces (grouping, splitting, request building, the circuit breaker) plus one async
`compact()` that runs the summary request; the restoration appended to the summary is
`restoration.py` (which also fits it to a small window, with `context_window.py`). The
conversation loop decides *when* and persists. Compaction you can see (MM7): a prepared
compaction describes what it keeps and drops and its summary draft (`CompactionPreview`), and
every summary message records one line per message it dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from wave_tui.agent.restoration import (
    RESTORATION_HEADING,
    RESTORE_MAX_FILES,
    RESTORE_TOKENS_PER_FILE,
    SKILLS_TOKENS_EACH,
    SKILLS_TOKENS_TOTAL,
    Budget,
    cap_to_tokens,
    fit_summary,
    fitting_keep_rounds,
    not_in_messages,
    recent_read_files,
    restoration_section,
    summary_cap,
    wire_tokens,
)
from wave_tui.agent.summary_request import (
    IMAGE_PLACEHOLDER,
    SUMMARY_MAX_TOKENS,
    SUMMARY_SECTIONS,
    SUMMARY_SYSTEM_PROMPT,
    SUMMARY_TEMPERATURE,
    build_summary_request,
    render_transcript,
    strip_images,
)
from wave_tui.config.records import record
from wave_tui.llm.errors import ContextLengthExceeded, ModelError
from wave_tui.llm.replies import AssistantReply
from wave_tui.llm.types import Message, Usage
from wave_tui.llm.usage import CHARS_PER_TOKEN, estimate_prompt_tokens, estimate_tokens

__all__ = [
    "CHARS_PER_TOKEN",
    "IMAGE_PLACEHOLDER",
    "RESTORATION_HEADING",
    "RESTORE_MAX_FILES",
    "RESTORE_TOKENS_PER_FILE",
    "SKILLS_TOKENS_EACH",
    "SKILLS_TOKENS_TOTAL",
    "SUMMARY_MAX_TOKENS",
    "SUMMARY_SECTIONS",
    "SUMMARY_SYSTEM_PROMPT",
    "SUMMARY_TEMPERATURE",
    "Budget",
    "build_summary_request",
    "cap_to_tokens",
    "estimate_tokens",
    "not_in_messages",
    "recent_read_files",
    "render_transcript",
    "restoration_section",
    "strip_images",
]

KEEP_ROUNDS = 2
MAX_FAILURES = 3
MAX_WINDOW_FAILURES = 2  # compactions in a row that could not fit the window (CV11)
FailureKind = Literal["error", "window"]


class CompactionError(RuntimeError):
    """Compaction could not produce a summary that fits; the caller counts one breaker failure.

    `kind` "window": it failed for want of room (the summary request was refused for its
    length, or the result cannot fit the next request); `overflow` is that refusal, if one
    came, for the size of a request of `sent_tokens` (our estimate)."""

    def __init__(
        self,
        message: str,
        *,
        kind: FailureKind = "error",
        overflow: ContextLengthExceeded | None = None,
        sent_tokens: int = 0,
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.overflow = overflow
        self.sent_tokens = sent_tokens


class ChatClient(Protocol):
    async def stream_chat(self, body: dict[str, Any]) -> AssistantReply: ...


@record
class CompactionResult:
    new_messages: list[Message]  # [compress block, *kept rounds]
    summary: str
    usage: Usage | None
    summarised_count: int


# -- when ---------------------------------------------------------------------------------------
def should_compact(usage: Usage | None, limit: int) -> bool:
    """True when the last reply's total tokens exceed the input budget.

    Cache reads/writes are already part of the prompt tokens; counting them again would trigger
    compaction early on every cache hit.
    """
    if usage is None:
        return False
    total = usage.total_tokens or usage.prompt_tokens + usage.completion_tokens
    return total > limit


# -- what ---------------------------------------------------------------------------------------
def _starts_round(message: Message, current: list[Message]) -> bool:
    if not current:
        return True
    if current[0].kind == "compress":
        return True  # a summary is a round of its own, so it can always be summarised again
    if message.kind == "compress":
        return True
    if message.role == "user":
        return not message.is_meta
    if message.role == "assistant":
        # The user prompt and the reply it triggered belong to one API round.
        return any(m.role == "assistant" for m in current)
    return False  # tool results stay with the assistant message that called them


def group_rounds(messages: Sequence[Message]) -> list[list[Message]]:
    """Messages grouped by API round; a tool call is never separated from its results."""
    rounds: list[list[Message]] = []
    for message in messages:
        if _starts_round(message, rounds[-1] if rounds else []):
            rounds.append([message])
        else:
            rounds[-1].append(message)
    return rounds


# req: CP1
def split_for_compaction(
    messages: Sequence[Message], keep_rounds: int = KEEP_ROUNDS
) -> tuple[list[Message], list[Message]]:
    """(to_summarise, kept): the last `keep_rounds` rounds stay verbatim.

    Any earlier compress block is always summarised, so a new summary replaces the old one.
    """
    rounds = group_rounds(messages)
    cut = max(0, len(rounds) - keep_rounds)
    to_summarise = [m for r in rounds[:cut] for m in r]
    kept: list[Message] = []
    for message in (m for r in rounds[cut:] for m in r):
        (to_summarise if message.kind == "compress" else kept).append(message)
    return to_summarise, kept


# -- the compress block -------------------------------------------------------------------------
def make_compress_message(summary: str, restoration: str) -> Message:
    content = summary.strip()
    if restoration:
        content = f"{content}\n\n{restoration}"
    return Message(role="user", content=content, kind="compress")


# -- failure accounting -------------------------------------------------------------------------
# req: CP4
@record(frozen=False)
class CompactionBreaker:
    """Stops auto-compaction after repeated failures, so a broken context doesn't burn API calls.

    Three failures of any kind open it (CP4); two in a row that could not fit the window open it
    sooner (CV11): a window that small needs /clear or another model, not a third summary."""

    threshold: int = MAX_FAILURES
    window_threshold: int = MAX_WINDOW_FAILURES
    failures: int = 0
    window_failures: int = 0
    _warned: bool = False
    _of_window: int = 0  # of `failures`, those the window caused

    @property
    def open(self) -> bool:
        return self.failures >= self.threshold or self.window_open

    @property
    def window_open(self) -> bool:
        return self.window_failures >= self.window_threshold

    def record_failure(self, kind: FailureKind = "error") -> None:
        self.failures += 1
        if kind == "window":
            self.window_failures += 1
            self._of_window += 1

    def trip_window(self) -> None:
        """No compaction can fit this window (the instructions alone fill it)."""
        raised = max(self.failures, self.window_failures)
        self._of_window += raised - self.failures
        self.failures = raised
        self.window_failures = self.window_threshold

    # req: FH10
    def reset_window(self) -> None:
        """Another window is in force (another model, or a larger one): the failures it caused
        start from none."""
        self.failures = max(0, self.failures - self._of_window)
        self.window_failures = self._of_window = 0
        self._warned = False

    def record_success(self) -> None:
        self.failures = 0
        self.window_failures = self._of_window = 0
        self._warned = False

    def take_warning(self) -> str | None:
        """The warning text, the first time the breaker is found open; None otherwise."""
        if not self.open or self._warned:
            return None
        self._warned = True
        return self.paused_text()

    def paused_text(self) -> str:
        return (
            f"Auto-compaction failed {self.failures} times in a row and is paused for this "
            "session; use /compact to retry or /clear to start over."
        )


# -- running it ---------------------------------------------------------------------------------
# req: CP1
async def compact(
    client: ChatClient,
    model: str,
    messages: Sequence[Message],
    instructions: str | None,
    recent_files: Sequence[tuple[Path, str]],
    workdir: Path,
    plan_mode: bool,
    background: Sequence[str],
    *,
    keep_rounds: int = KEEP_ROUNDS,
    plan_file: Path | None = None,
    skills: Sequence[tuple[str, str]] = (),
    options: Mapping[str, Any] | None = None,
    window_tokens: int | None = None,
    budget: Budget | None = None,
) -> CompactionResult:
    """Summarise all but the last rounds; raises CompactionError on any failure.

    With a `budget` the result fits it: fewer rounds are kept verbatim when they would not fit,
    the summary is asked (and if need be cut) to a length that leaves room, and the restoration
    takes what is left (CV11)."""
    room = budget.room if budget is not None else None
    if room is not None:
        keep_rounds = fitting_keep_rounds(group_rounds(messages), keep_rounds, room)
    to_summarise, kept = split_for_compaction(messages, keep_rounds)
    # A short conversation (e.g. manual /compact) still compacts: keep fewer rounds.
    while not any(m.kind != "compress" for m in to_summarise) and keep_rounds > 0:
        keep_rounds -= 1
        to_summarise, kept = split_for_compaction(messages, keep_rounds)
    if not to_summarise:
        raise CompactionError("nothing to compact")
    max_tokens = SUMMARY_MAX_TOKENS
    if room is not None:
        max_tokens = summary_cap(room - wire_tokens(kept), SUMMARY_MAX_TOKENS)
    body = build_summary_request(
        model,
        to_summarise,
        instructions,
        options=options,
        window_tokens=window_tokens,
        max_tokens=max_tokens,
        budget=budget.summary if budget is not None else None,
    )
    try:
        reply = await client.stream_chat(body)
    except ContextLengthExceeded as exc:
        raise CompactionError(
            f"summary request failed: {exc}",
            kind="window",
            overflow=exc,
            sent_tokens=estimate_prompt_tokens(body),
        ) from exc
    except ModelError as exc:
        raise CompactionError(f"summary request failed: {exc}") from exc
    if reply.tool_calls and not reply.content.strip():
        raise CompactionError("summary model answered with tool calls instead of a summary")
    summary = reply.content.strip()
    if not summary:
        raise CompactionError("summary model returned an empty summary")
    if reply.finish_reason == "length":
        summary += "\n\n[summary cut off at the output limit]"
    files = not_in_messages(recent_files, kept, workdir)

    def restoration(limit: int | None) -> str:
        return restoration_section(
            files, workdir, plan_mode, background, plan_file=plan_file, skills=skills, budget=limit
        )

    if room is None:
        compress = make_compress_message(summary, restoration(None))
    else:
        fitted = fit_summary(summary, kept, room, restoration, make_compress_message)
        if fitted is None:
            raise CompactionError(
                "the summary and the rounds kept do not fit the context window", kind="window"
            )
        compress = fitted
    return CompactionResult(
        new_messages=[compress, *kept],
        summary=summary,
        usage=reply.usage,
        summarised_count=len(to_summarise),
    )


# -- compaction you can see (MM7): what a prepared compaction keeps and drops ------------

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
