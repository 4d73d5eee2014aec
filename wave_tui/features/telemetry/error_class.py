"""What an exported error says: a class (`tool_error`, `permission_denied`, `http_4xx`, …),
never the failure's own text, unless the content switches are on.

A tool's output names what it touched (a Read's path, a command's output) and a provider's
error body often echoes the prompt back: copying either into a span or an `error` event would
export exactly what `OTEL_LOG_USER_PROMPTS` and `OTEL_LOG_TOOL_CONTENT` keep home. The class
says what kind of failure it was, which is what a dashboard groups by anyway.
"""

from __future__ import annotations

import asyncio
import traceback
from typing import Literal

from wave_tui.features.telemetry.config import TelemetryConfig
from wave_tui.llm.errors import (
    ContextLengthExceeded,
    ModelConfigError,
    ModelConnectionError,
    ModelHTTPError,
    ModelNotConfigured,
    ModelProtocolError,
    StreamInterrupted,
)
from wave_tui.tools.base import ToolResult

ERROR_LIMIT = 200  # characters of a failure's own text kept when the switches allow it
STACK_LIMIT = 2000  # characters of a stack kept in an `error` event
REFUSED_SUMMARY = "refused"  # the summary of a call the guards or the policy refused
ABORTED_SUMMARY = "Aborted"

ErrorClass = Literal[
    "aborted",
    "permission_denied",
    "tool_error",
    "timeout",
    "context_length_exceeded",
    "http_4xx",
    "http_5xx",
    "http_error",
    "connection_error",
    "stream_interrupted",
    "protocol_error",
    "config_error",
    "internal_error",
    "extraction_failed",
]


# req: HR7
def tool_error_class(result: ToolResult) -> ErrorClass:
    """The class of a failed tool result, from its summary, never from its content."""
    if result.summary == REFUSED_SUMMARY:
        return "permission_denied"
    if result.summary == ABORTED_SUMMARY:
        return "aborted"
    return "tool_error"


# req: HR7
def exception_class(error: BaseException) -> ErrorClass:
    """The class of an exception, by its type (and an HTTP status's hundred)."""
    if isinstance(error, asyncio.CancelledError):
        return "aborted"
    if isinstance(error, ContextLengthExceeded):
        return "context_length_exceeded"
    if isinstance(error, ModelHTTPError):
        if 400 <= error.status < 500:
            return "http_4xx"
        return "http_5xx" if 500 <= error.status < 600 else "http_error"
    if isinstance(error, TimeoutError):
        return "timeout"
    if isinstance(error, ModelConnectionError):
        return "connection_error"
    if isinstance(error, StreamInterrupted):
        return "stream_interrupted"
    if isinstance(error, ModelProtocolError):
        return "protocol_error"
    if isinstance(error, ModelConfigError | ModelNotConfigured):
        return "config_error"
    return "internal_error"


def request_content_allowed(config: TelemetryConfig) -> bool:
    """A model request carries the prompt and tool results: an error about it may echo both."""
    return config.log_user_prompts and config.log_tool_content


def tool_error_text(result: ToolResult, config: TelemetryConfig) -> str:
    """The span's `error` for a failed tool: its first line only with tool content on."""
    if not config.log_tool_content:
        return tool_error_class(result)
    lines = result.content.strip().splitlines()
    return (lines[0] if lines else tool_error_class(result))[:ERROR_LIMIT]


def exception_text(error: BaseException, allowed: bool) -> str:
    """An exception's `error`: its message when `allowed`, else its class."""
    if not allowed or isinstance(error, asyncio.CancelledError):
        return exception_class(error)
    return (str(error) or type(error).__name__)[:ERROR_LIMIT]


def extraction_error_text(error: str, config: TelemetryConfig) -> str:
    """A fork run's failure arrives as text only, from a request that carried the whole
    conversation: its class is all that is known without the switches."""
    if request_content_allowed(config):
        return error[:ERROR_LIMIT]
    kind: ErrorClass = "extraction_failed"
    return kind


# req: HR7
def exception_stack(error: BaseException, allowed: bool) -> str:
    """The stack of an `error` event: frames and exception types, and the messages (which may
    quote the prompt) only when `allowed`."""
    if allowed:
        return "".join(traceback.format_exception(error))[-STACK_LIMIT:]
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = traceback.format_tb(current.__traceback__)
        parts.append("".join(frames) + f"{type(current).__module__}.{type(current).__qualname__}\n")
        current = current.__cause__ or current.__context__
    return "".join(reversed(parts))[-STACK_LIMIT:]
