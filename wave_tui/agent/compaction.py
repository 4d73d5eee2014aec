"""Conversation compaction: when a session outgrows the model's input budget, the older history is
replaced by a fast-model summary (a `compress` block) and the last API rounds are kept verbatim.

Pure pieces (grouping, splitting, request building, restoration text, the circuit breaker) plus one
async `compact()` that runs the summary request. The conversation loop decides *when* and persists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from wave_tui.config.records import record
from wave_tui.llm.errors import ModelError
from wave_tui.llm.options import apply_model_options
from wave_tui.llm.replies import AssistantReply
from wave_tui.llm.types import Message, Usage
from wave_tui.tools.read import format_line
from wave_tui.tools.read_state import ReadState

KEEP_ROUNDS = 2
SUMMARY_MAX_TOKENS = 8192
SUMMARY_TEMPERATURE = 0.1
MAX_FAILURES = 3
RESTORE_MAX_FILES = 5
RESTORE_TOKENS_PER_FILE = 5000
SKILLS_TOKENS_TOTAL = 25_000
SKILLS_TOKENS_EACH = 5000
TOOL_RESULT_MAX_CHARS = 4000
MESSAGE_MAX_CHARS = 20_000
CHARS_PER_TOKEN = 4
IMAGE_PLACEHOLDER = "[image]"
RESTORATION_HEADING = "[Context Restoration]"

SUMMARY_SECTIONS: tuple[str, ...] = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code Sections",
    "Errors and Fixes",
    "Problem Solving",
    "All User Messages",
    "Pending Tasks",
    "Current Work",
    "Optional Next Step",
)

_SECTION_HINTS: dict[str, str] = {
    "Primary Request and Intent": "every explicit request and intent of the user, in detail",
    "Key Technical Concepts": "technologies, frameworks and concepts that were discussed",
    "Files and Code Sections": "files examined, modified or created, with the important snippets "
    "and why each matters",
    "Errors and Fixes": "errors met and how they were fixed, including user feedback on them",
    "Problem Solving": "problems solved and troubleshooting still in progress",
    "All User Messages": "every user message that is not a tool result, nearly verbatim",
    "Pending Tasks": "tasks explicitly asked for that are not done yet",
    "Current Work": "precisely what was being worked on right before this summary",
    "Optional Next Step": "the next step, only if it follows directly from the latest request; "
    "quote the latest messages to show where work left off",
}

SUMMARY_SYSTEM_PROMPT = (
    "You are summarising a conversation between a user and an AI coding agent so the agent can "
    "continue the work without the original history. Be thorough with technical detail (file "
    "paths, function names, commands, decisions) and concise in prose. Reply with the summary "
    "only, as plain text with no tool calls, using exactly these nine numbered sections:\n\n"
    + "\n".join(
        f"{n}. {name}: {_SECTION_HINTS[name]}." for n, name in enumerate(SUMMARY_SECTIONS, 1)
    )
    + "\n\nIf the transcript starts with an earlier conversation summary, fold its content into "
    "the new summary: the new summary replaces it entirely."
)

_DATA_IMAGE_RE = re.compile(r"data:image/[\w.+-]+;base64,[A-Za-z0-9+/=\s]+")


class CompactionError(RuntimeError):
    """Compaction could not produce a summary; the caller counts it as one breaker failure."""


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


# -- the summary request ------------------------------------------------------------------------
def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def _cap(text: str, max_chars: int, what: str) -> str:
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}\n[… {what} truncated: {len(text) - max_chars} more characters]"


def strip_images(content: str | list[dict[str, Any]] | None) -> str:
    """Content as plain text, each image replaced by a placeholder (images cost many tokens)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return _DATA_IMAGE_RE.sub(IMAGE_PLACEHOLDER, content)
    parts: list[str] = []
    for part in content:
        if part.get("type") == "text":
            parts.append(_DATA_IMAGE_RE.sub(IMAGE_PLACEHOLDER, str(part.get("text", ""))))
        elif part.get("type") in ("image_url", "image", "input_image"):
            parts.append(IMAGE_PLACEHOLDER)
    return "\n".join(parts)


def _render(message: Message) -> str:
    text = strip_images(message.content)
    if message.kind == "compress":
        return f"[Earlier conversation summary]\n{text}"
    if message.role == "tool":
        name = message.tool_name or "tool"
        return f"[Tool result: {name}]\n{_cap(text, TOOL_RESULT_MAX_CHARS, 'tool result')}"
    if message.role == "assistant":
        lines = [f"[Assistant]\n{_cap(text, MESSAGE_MAX_CHARS, 'message')}"] if text else []
        for call in message.tool_calls:
            arguments = _cap(call.arguments, TOOL_RESULT_MAX_CHARS, "arguments")
            lines.append(f"[Assistant tool call: {call.name}] {arguments}")
        return "\n".join(lines) or "[Assistant]"
    label = "[Context note]" if message.is_meta else "[User]"
    return f"{label}\n{_cap(text, MESSAGE_MAX_CHARS, 'message')}"


def render_transcript(messages: Sequence[Message]) -> str:
    """The history as one text block: a flat transcript never violates tool-call pairing rules."""
    return "\n\n".join(_render(m) for m in messages)


def build_summary_request(
    model: str,
    to_summarise: Sequence[Message],
    instructions: str | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    window_tokens: int | None = None,
) -> dict[str, Any]:
    """Chat-completions body for the (fast) summary model: no tools, images stripped; the
    model's `models.<name>.options` apply, the output limit under the name it takes."""
    request = (
        "Summarise the conversation transcript below.\n\n<transcript>\n"
        + render_transcript(to_summarise)
        + "\n</transcript>"
    )
    if instructions and instructions.strip():
        request += f"\n\nAdditional instructions from the user:\n{instructions.strip()}"
    body = {
        "model": model,
        "messages": [
            {"role": "system", "content": SUMMARY_SYSTEM_PROMPT},
            {"role": "user", "content": request},
        ],
        "max_tokens": SUMMARY_MAX_TOKENS,
        "temperature": SUMMARY_TEMPERATURE,
    }
    if options is None and window_tokens is None:
        return body
    # The input budget is not the model's window: the client clamps to a window a server
    # stated (LearnedParams), so callers pass `window_tokens` only for a known total window.
    return apply_model_options(  # req: PV10
        body, options, max_output_tokens=SUMMARY_MAX_TOKENS, window_tokens=window_tokens
    )


# -- context restoration ------------------------------------------------------------------------
def cap_to_tokens(text: str, budget: int) -> str:
    limit = budget * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    omitted = estimate_tokens(text[limit:])
    return f"{text[:limit]}\n[… truncated: about {omitted} more tokens; read the file again for the rest]"


def recent_read_files(
    read_state: ReadState, limit: int = RESTORE_MAX_FILES
) -> list[tuple[Path, str]]:
    """The most recently read whole files whose content is known, newest first."""
    entries = [e for e in read_state if e.is_full and e.content is not None]
    entries.sort(key=lambda e: e.read_at, reverse=True)
    return [(e.path, e.content or "") for e in entries[:limit]]


def _full_read_target(arguments: str, workdir: Path) -> Path | None:
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return None
    if not isinstance(args, dict) or not isinstance(args.get("file_path"), str):
        return None
    if args.get("offset") not in (None, 0, 1) or args.get("limit") is not None:
        return None  # a partial read does not hold the whole file
    path = Path(args["file_path"]).expanduser()
    return (path if path.is_absolute() else workdir / path).resolve()


def _holds(result: str, content: str) -> bool:
    """The Read result shows this content: its first and last lines, numbered as Read numbers."""
    lines = content.splitlines()
    if not lines:
        return True
    return format_line(1, lines[0]) in result and format_line(len(lines), lines[-1]) in result


def not_in_messages(
    recent_files: Sequence[tuple[Path, str]], messages: Sequence[Message], workdir: Path
) -> list[tuple[Path, str]]:
    """The recent files whose current content no kept Read result already shows (MX10)."""
    # req: MX10
    calls: dict[str, Path] = {}
    shown: dict[Path, list[str]] = {}
    for message in messages:
        for call in message.tool_calls or []:
            target = _full_read_target(call.arguments, workdir) if call.name == "Read" else None
            if target is not None:
                calls[call.id] = target
        if message.role == "tool" and message.tool_call_id in calls:
            shown.setdefault(calls[message.tool_call_id], []).append(message.content)
    kept: list[tuple[Path, str]] = []
    for path, content in recent_files:
        results = shown.get(path.resolve(), [])
        if not any(_holds(result, content) for result in results):
            kept.append((path, content))
    return kept


def restoration_section(
    recent_files: Sequence[tuple[Path, str]],
    workdir: Path,
    plan_mode: bool,
    background: Sequence[str],
    token_budget_per_file: int = RESTORE_TOKENS_PER_FILE,
    *,
    plan_file: Path | None = None,
    skills: Sequence[tuple[str, str]] = (),
) -> str:
    """What the summary cannot carry precisely: recent file contents and live session state."""
    lines = [RESTORATION_HEADING, f"Working directory: {workdir}"]
    plan = "on" if plan_mode else "off"
    if plan_mode and plan_file is not None:
        plan += f" (plan file: {plan_file})"
    lines.append(f"Plan mode: {plan}")
    if background:
        lines.append("Background work still running:")
        lines.extend(f"- {item}" for item in background)
    else:
        lines.append("Background work still running: none")
    if skills:
        lines.append("Skills invoked in this session:")
        remaining = SKILLS_TOKENS_TOTAL
        for name, description in skills:
            entry = cap_to_tokens(f"- {name}: {description}", min(SKILLS_TOKENS_EACH, remaining))
            remaining -= estimate_tokens(entry)
            if remaining <= 0:
                break
            lines.append(entry)
    for path, content in list(recent_files)[:RESTORE_MAX_FILES]:
        lines.append(
            f"\nRecently read file: {path}\n```\n{cap_to_tokens(content, token_budget_per_file)}\n```"
        )
    return "\n".join(lines)


def make_compress_message(summary: str, restoration: str) -> Message:
    content = summary.strip()
    if restoration:
        content = f"{content}\n\n{restoration}"
    return Message(role="user", content=content, kind="compress")


# -- failure accounting -------------------------------------------------------------------------
# req: CP4
@record(frozen=False)
class CompactionBreaker:
    """Stops auto-compaction after repeated failures, so a broken context doesn't burn API calls."""

    threshold: int = MAX_FAILURES
    failures: int = 0
    _warned: bool = False

    @property
    def open(self) -> bool:
        return self.failures >= self.threshold

    def record_failure(self) -> None:
        self.failures += 1

    def record_success(self) -> None:
        self.failures = 0
        self._warned = False

    def take_warning(self) -> str | None:
        """The warning text, the first time the breaker is found open; None otherwise."""
        if not self.open or self._warned:
            return None
        self._warned = True
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
) -> CompactionResult:
    """Summarise all but the last rounds; raises CompactionError on any failure."""
    to_summarise, kept = split_for_compaction(messages, keep_rounds)
    # A short conversation (e.g. manual /compact) still compacts: keep fewer rounds.
    while not any(m.kind != "compress" for m in to_summarise) and keep_rounds > 0:
        keep_rounds -= 1
        to_summarise, kept = split_for_compaction(messages, keep_rounds)
    if not to_summarise:
        raise CompactionError("nothing to compact")
    body = build_summary_request(
        model, to_summarise, instructions, options=options, window_tokens=window_tokens
    )
    try:
        reply = await client.stream_chat(body)
    except ModelError as exc:
        raise CompactionError(f"summary request failed: {exc}") from exc
    if reply.tool_calls and not reply.content.strip():
        raise CompactionError("summary model answered with tool calls instead of a summary")
    summary = reply.content.strip()
    if not summary:
        raise CompactionError("summary model returned an empty summary")
    if reply.finish_reason == "length":
        summary += "\n\n[summary cut off at the output limit]"
    restoration = restoration_section(
        not_in_messages(recent_files, kept, workdir),
        workdir,
        plan_mode,
        background,
        plan_file=plan_file,
        skills=skills,
    )
    compress = make_compress_message(summary, restoration)
    return CompactionResult(
        new_messages=[compress, *kept],
        summary=summary,
        usage=reply.usage,
        summarised_count=len(to_summarise),
    )
