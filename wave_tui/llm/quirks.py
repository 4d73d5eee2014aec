"""What providers' error bodies mean: one table per kind of answer, matched case-insensitively.

Each pattern is copied from a real server's message so that a new provider is one line here.
"""

from __future__ import annotations

import json
import re
from typing import Any

from wave_tui.config.records import record

# req: PV11
CONTEXT_LENGTH_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"context_length_exceeded",  # OpenAI / Azure error code
        r"maximum context length",  # OpenAI, vLLM, DeepSeek, Kimi
        r"prompt is too long",  # Anthropic-compatible gateways
        r"exceeds the available context size",  # llama.cpp server
        r"exceed_context_size_error",  # llama.cpp error type
        r"context window",  # "input exceeds the context window" (several gateways)
        r"too many tokens",  # Mistral
    )
)

# req: PV12
MISCONFIGURED: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), fix)
    for p, fix in (
        (
            r"tool choice requires --enable-auto-tool-choice",
            "vLLM has tool calling off: restart it with --enable-auto-tool-choice "
            "--tool-call-parser <parser for this model>",
        ),
        (
            r"requires --jinja",
            "llama.cpp serves tools only with its Jinja templates: restart llama-server with --jinja",
        ),
        (
            r"does not support tools",
            "this model has no tool support on the server: pick a tool-capable model "
            "(e.g. `ollama show <model>` lists 'tools' under Capabilities)",
        ),
        (
            r"tools? (?:is|are) not supported",
            "the endpoint does not accept tools: pick a tool-capable model or server",
        ),
    )
)

# req: CV5
# A chat template that wants user and assistant to alternate: a user message after a tool result
# (Mistral's API) or after another user message (Gemma / Mistral templates under vLLM, llama.cpp).
ROLE_ORDER_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"unexpected role '?user'? after role '?tool'?",  # Mistral API
        r"invalid_request_message_order",  # Mistral API error type
        r"roles must alternate",  # Jinja chat templates (Gemma, Mistral, Llama 2)
    )
)

MISSING_REASONING = re.compile(r"missing .?reasoning_content.? field", re.IGNORECASE)  # req: PV2

# vLLM: "... maximum context length is 4096 tokens. However, you requested 5000 tokens
# (1000 in the messages, 4000 in the completion)."
_WINDOW = re.compile(r"maximum context length is (\d+)", re.IGNORECASE)
_PROMPT_PART = re.compile(r"(\d+) in the messages", re.IGNORECASE)


@record
class ErrorInfo:
    """The parts of an error body the client acts on."""

    message: str
    code: str | None = None
    param: str | None = None


def parse_error(body: bytes) -> ErrorInfo:
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data: Any = json.loads(text)
    except ValueError:
        return ErrorInfo(text[:300] or "(empty body)")
    if not isinstance(data, dict):
        return ErrorInfo(text[:300])
    err = data.get("error", data)
    if isinstance(err, str):
        return ErrorInfo(err[:300])
    if not isinstance(err, dict):
        return ErrorInfo(text[:300])
    message = str(err.get("message") or data.get("message") or text)[:300]
    code = err.get("code")
    param = err.get("param")
    return ErrorInfo(
        message,
        str(code) if isinstance(code, str) else None,
        str(param) if isinstance(param, str) else None,
    )


def _haystack(info: ErrorInfo) -> str:
    return f"{info.code or ''} {info.message}"


def is_context_length(info: ErrorInfo) -> bool:
    text = _haystack(info)
    return any(p.search(text) for p in CONTEXT_LENGTH_PATTERNS)


def is_role_order(info: ErrorInfo) -> bool:
    text = _haystack(info)
    return any(p.search(text) for p in ROLE_ORDER_PATTERNS)


def misconfiguration_fix(info: ErrorInfo) -> str | None:
    for pattern, fix in MISCONFIGURED:
        if pattern.search(info.message):
            return fix
    return None


def stated_window(info: ErrorInfo) -> int | None:
    found = _WINDOW.search(info.message)
    return int(found.group(1)) if found else None


def completion_room(info: ErrorInfo) -> int | None:
    """Output tokens that would still fit, when the body states the window and the prompt size."""
    window = _WINDOW.search(info.message)
    prompt = _PROMPT_PART.search(info.message)
    if window is None or prompt is None:
        return None
    room = int(window.group(1)) - int(prompt.group(1))
    return room if room > 0 else None


def unsupported_param(info: ErrorInfo) -> str | None:
    """The rejected request parameter of an OpenAI `unsupported_parameter`/`_value` answer."""
    coded = info.code in ("unsupported_parameter", "unsupported_value")
    if not coded and not re.search(r"unsupported (?:parameter|value)", info.message, re.I):
        return None
    if info.param:
        return info.param
    named = re.search(r"'([a-z_]+)'", info.message)
    return named.group(1) if named else None
