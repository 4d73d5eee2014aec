"""What providers' error bodies mean: one table per kind of answer, matched case-insensitively.

Each pattern is copied from a real server's message so that a new provider is one line here.
"""

from __future__ import annotations

import json
import re
from typing import Any

from wave_tui.config.records import record

# The tables are pattern texts, not compiled patterns: they are read only when a request fails,
# and `re` compiles (and caches) each on that first use instead of at every start-up.

# req: PV11
CONTEXT_LENGTH_PATTERNS: tuple[str, ...] = (
    r"context_length_exceeded",  # OpenAI / Azure error code
    r"maximum context length",  # OpenAI, vLLM, DeepSeek, Kimi
    r"prompt is too long",  # Anthropic-compatible gateways
    r"exceeds the available context size",  # llama.cpp server
    r"exceed_context_size_error",  # llama.cpp error type
    r"context window",  # "input exceeds the context window" (several gateways)
    r"too many tokens",  # Mistral
    r"too large for model with \d+ maximum context length",  # Mistral
    r"exceeds (?:the )?context length",  # Ollama, LM Studio
    r"context length of only",  # LM Studio
    r"longer than the maximum model length",  # vLLM
    r"input tokens exceed the configured limit",  # OpenAI Responses-style
    r"must be <= \d+\. given: \d+ `inputs` tokens",  # Hugging Face TGI
)

# req: PV12
MISCONFIGURED: tuple[tuple[str, str], ...] = (
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

# req: CV5
# A chat template that wants user and assistant to alternate: a user message after a tool result
# (Mistral's API) or after another user message (Gemma / Mistral templates under vLLM, llama.cpp).
ROLE_ORDER_PATTERNS: tuple[str, ...] = (
    r"unexpected role '?user'? after role '?tool'?",  # Mistral API
    r"invalid_request_message_order",  # Mistral API error type
    r"roles must alternate",  # Jinja chat templates (Gemma, Mistral, Llama 2)
)

MISSING_REASONING = r"missing .?reasoning_content.? field"  # req: PV2

# What a context-length refusal says about the window, one wording per server; each pattern
# names `window` and/or `prompt` (the tokens the refused request held, as the server counted).
CONTEXT_NUMBERS: tuple[str, ...] = (
    # OpenAI, vLLM, DeepSeek, Groq, Kimi: "This model's maximum context length is 8192 tokens.
    # However, you requested 9000 tokens (8000 in the messages, 1000 in the completion)" /
    # "However, your messages resulted in 9000 tokens" / "and your request has 2778 input
    # tokens (8000 > 4096 - 2778)"
    r"maximum context length is (?P<window>\d+)",
    r"\b(?P<prompt>\d+) in the messages",
    r"your messages resulted in (?P<prompt>\d+) tokens",
    r"your request has (?P<prompt>\d+) input tokens",
    # vLLM: "The decoder prompt (length 9641) is longer than the maximum model length of 9000"
    r"prompt \(length (?P<prompt>\d+)\) is longer than the maximum model length of "
    r"(?P<window>\d+)",
    # llama.cpp server: "request (9641 tokens) exceeds the available context size (9000
    # tokens), try increasing it" (older servers: no numbers, `n_ctx` in the error object)
    r"request \((?P<prompt>\d+) tokens\) exceeds the available context size",
    r"available context size \((?P<window>\d+) tokens\)",
    # LM Studio: "Input length 9641 exceeds context length 9000" / "the model is loaded with
    # context length of only 9000 tokens"
    r"input length (?P<prompt>\d+) exceeds (?:the )?context length (?P<window>\d+)",
    r"context length of only (?P<window>\d+)",
    # Anthropic-compatible gateways: "prompt is too long: 9641 tokens > 9000 maximum"
    r"prompt is too long: (?P<prompt>\d+) tokens > (?P<window>\d+) maximum",
    # Mistral: "Prompt contains 9641 tokens and 0 draft tokens, too large for model with
    # 9000 maximum context length"
    r"prompt contains (?P<prompt>\d+) tokens",
    r"too large for model with (?P<window>\d+) maximum context length",
    # OpenAI Responses-style: "Input tokens exceed the configured limit of 9000 tokens"
    r"configured limit of (?P<window>\d+) tokens",
    # Hugging Face TGI: "`inputs` tokens + `max_new_tokens` must be <= 9000. Given: 9641
    # `inputs` tokens and 512 `max_new_tokens`"
    r"must be <= (?P<window>\d+)\. given: (?P<prompt>\d+) `inputs` tokens",
)
# The same numbers as fields of the error object (llama.cpp's `exceed_context_size_error`).
WINDOW_FIELDS = ("n_ctx", "max_model_len", "context_length")
PROMPT_FIELDS = ("n_prompt_tokens", "prompt_tokens")
# Ollama ("the input length exceeds the context length") states no number: its window comes
# from the /api/show probe (ollama.py), and the agent takes the refused request's size as a bound.


@record
class ErrorInfo:
    """The parts of an error body the client acts on."""

    message: str
    code: str | None = None
    param: str | None = None
    window: int | None = None  # the context window the body states (CV11)
    prompt_tokens: int | None = None  # the refused request's size, as the server counted it


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
    full = str(err.get("message") or data.get("message") or text)
    code = err.get("code")
    param = err.get("param")
    window, prompt = _context_numbers(full, (err, data))
    return ErrorInfo(
        full[:300],
        str(code) if isinstance(code, str) else None,
        str(param) if isinstance(param, str) else None,
        window,
        prompt,
    )


def _field(objects: tuple[dict[str, Any], ...], names: tuple[str, ...]) -> int | None:
    for obj in objects:
        for name in names:
            value = obj.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return None


# req: CV11
def _context_numbers(
    message: str, objects: tuple[dict[str, Any], ...] = ()
) -> tuple[int | None, int | None]:
    """(window, prompt tokens) as an error states them: message wording, then object fields."""
    found: dict[str, int] = {}
    for pattern in CONTEXT_NUMBERS:
        match = re.search(pattern, message, re.IGNORECASE)
        if match is None:
            continue
        for name, value in match.groupdict().items():
            if value is not None:
                found.setdefault(name, int(value))
    window = found.get("window") or _field(objects, WINDOW_FIELDS)
    prompt = found.get("prompt") or _field(objects, PROMPT_FIELDS)
    return window, prompt


def matches_any(patterns: tuple[str, ...], text: str) -> bool:
    """Any of `patterns` (one of the tables above) found in `text`, case-insensitively."""
    return any(re.search(p, text, re.IGNORECASE) for p in patterns)


def _haystack(info: ErrorInfo) -> str:
    return f"{info.code or ''} {info.message}"


def is_context_length(info: ErrorInfo) -> bool:
    text = _haystack(info)
    return matches_any(CONTEXT_LENGTH_PATTERNS, text)


def misses_reasoning(message: str) -> bool:
    """The server wants `reasoning_content` echoed on assistant messages (PV2)."""
    return matches_any((MISSING_REASONING,), message)


def is_role_order(info: ErrorInfo) -> bool:
    text = _haystack(info)
    return matches_any(ROLE_ORDER_PATTERNS, text)


def misconfiguration_fix(info: ErrorInfo) -> str | None:
    for pattern, fix in MISCONFIGURED:
        if re.search(pattern, info.message, re.IGNORECASE):
            return fix
    return None


def stated_window(info: ErrorInfo) -> int | None:
    """The context window the error states, in any wording `CONTEXT_NUMBERS` knows."""
    return info.window if info.window is not None else _context_numbers(info.message)[0]


def stated_prompt_tokens(info: ErrorInfo) -> int | None:
    """The refused request's prompt size, as the server counted it (None when not stated)."""
    if info.prompt_tokens is not None:
        return info.prompt_tokens
    return _context_numbers(info.message)[1]


def completion_room(info: ErrorInfo) -> int | None:
    """Output tokens that would still fit, when the body states the window and the prompt size."""
    window, prompt = stated_window(info), stated_prompt_tokens(info)
    if window is None or prompt is None:
        return None
    room = window - prompt
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
