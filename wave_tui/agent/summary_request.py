"""The summary request of a compaction: the nine-section prompt, the history rendered as one
flat transcript (images stripped, long parts capped), and the body for the (fast) summary model.

With a budget the transcript is rendered ever shorter — tighter caps, then the oldest messages
left out with a note — until the request fits the summary model's window (CV11).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from wave_tui.llm.options import apply_model_options
from wave_tui.llm.types import Message
from wave_tui.llm.usage import estimate_prompt_tokens

SUMMARY_MAX_TOKENS = 8192
SUMMARY_TEMPERATURE = 0.1
TOOL_RESULT_MAX_CHARS = 4000
MESSAGE_MAX_CHARS = 20_000
IMAGE_PLACEHOLDER = "[image]"

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


def _render(
    message: Message, tool_cap: int = TOOL_RESULT_MAX_CHARS, message_cap: int = MESSAGE_MAX_CHARS
) -> str:
    text = strip_images(message.content)
    if message.kind == "compress":
        return f"[Earlier conversation summary]\n{_cap(text, message_cap, 'summary')}"
    if message.role == "tool":
        name = message.tool_name or "tool"
        return f"[Tool result: {name}]\n{_cap(text, tool_cap, 'tool result')}"
    if message.role == "assistant":
        lines = [f"[Assistant]\n{_cap(text, message_cap, 'message')}"] if text else []
        for call in message.tool_calls:
            arguments = _cap(call.arguments, tool_cap, "arguments")
            lines.append(f"[Assistant tool call: {call.name}] {arguments}")
        return "\n".join(lines) or "[Assistant]"
    label = "[Context note]" if message.is_meta else "[User]"
    return f"{label}\n{_cap(text, message_cap, 'message')}"


def render_transcript(
    messages: Sequence[Message],
    tool_cap: int = TOOL_RESULT_MAX_CHARS,
    message_cap: int = MESSAGE_MAX_CHARS,
) -> str:
    """The history as one text block: a flat transcript never violates tool-call pairing rules."""
    return "\n\n".join(_render(m, tool_cap, message_cap) for m in messages)


# Ever tighter caps (tool result, message) for a transcript that does not fit the summary
# model's window; past the last, the oldest messages are left out (CV11).
TRANSCRIPT_CAPS: tuple[tuple[int, int], ...] = (
    (TOOL_RESULT_MAX_CHARS, MESSAGE_MAX_CHARS),
    (1200, 4000),
    (400, 1200),
)
OMITTED_NOTE = (
    "[… {n} earlier messages left out: they do not fit the summary model's context window]"
)


def _fitted_transcripts(messages: Sequence[Message]) -> list[str]:
    """Renderings of `messages`, each smaller than the one before."""
    out = [render_transcript(messages, tool, message) for tool, message in TRANSCRIPT_CAPS]
    tool, message = TRANSCRIPT_CAPS[-1]
    parts = [_render(m, tool, message) for m in messages]
    for drop in (len(parts) // 4, len(parts) // 2, 3 * len(parts) // 4, len(parts) - 1):
        if 0 < drop < len(parts):
            rest = "\n\n".join(parts[drop:])
            out.append(OMITTED_NOTE.format(n=drop) + "\n\n" + rest)
    return out


def _summary_body(
    model: str, transcript: str, instructions: str | None, max_tokens: int
) -> dict[str, Any]:
    request = (
        f"Summarise the conversation transcript below.\n\n<transcript>\n{transcript}\n</transcript>"
    )
    if max_tokens < SUMMARY_MAX_TOKENS:
        # A small window: the summary has to leave room for the work that follows it.
        words = max(50, max_tokens * 3 // 4)
        request += f"\n\nKeep the whole summary under about {words} words."
    if instructions and instructions.strip():
        request += f"\n\nAdditional instructions from the user:\n{instructions.strip()}"
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": SUMMARY_SYSTEM_PROMPT},
            {"role": "user", "content": request},
        ],
        "max_tokens": max_tokens,
        "temperature": SUMMARY_TEMPERATURE,
    }


# req: PV10
def build_summary_request(
    model: str,
    to_summarise: Sequence[Message],
    instructions: str | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    window_tokens: int | None = None,
    max_tokens: int = SUMMARY_MAX_TOKENS,
    budget: int | None = None,
) -> dict[str, Any]:
    """Chat-completions body for the (fast) summary model: no tools, images stripped; the
    model's `models.<name>.options` apply, the output limit under the name it takes.

    With a `budget` (estimated tokens the summary model's request may hold, reply included) the
    transcript is rendered ever shorter until the request fits it (CV11)."""
    renderings = _fitted_transcripts(to_summarise) if budget is not None else []
    body = _summary_body(model, render_transcript(to_summarise), instructions, max_tokens)
    for transcript in renderings:
        body = _summary_body(model, transcript, instructions, max_tokens)
        if budget is not None and estimate_prompt_tokens(body) + max_tokens <= budget:
            break
    if options is None and window_tokens is None:
        return body
    # The input budget is not the model's window: the client clamps to a window a server
    # stated (LearnedParams), so callers pass `window_tokens` only for a known total window.
    return apply_model_options(
        body, options, max_output_tokens=max_tokens, window_tokens=window_tokens
    )
