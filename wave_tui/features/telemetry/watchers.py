"""The `wave.llm_request` and `wave.tool` spans: a request watcher and a tool watcher, also
plugged into every subagent's loop (their spans nest under the Agent call's span).

Tool input and output go into a span only with `OTEL_LOG_TOOL_CONTENT=1`.
"""

from __future__ import annotations

import json
import time
from contextlib import AbstractContextManager, nullcontext
from types import TracebackType

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from wave_tui.agent.extensions import ToolCallInfo, ToolOutcome
from wave_tui.features.telemetry.error_class import (
    REFUSED_SUMMARY,
    exception_class,
    exception_stack,
    exception_text,
    request_content_allowed,
    tool_error_text,
)
from wave_tui.features.telemetry.recorder import Recorder, clipped
from wave_tui.llm.types import Usage
from wave_tui.permissions.tool_table import WRITE
from wave_tui.tools.base import ToolResult


def _ms(start_ns: int, end_ns: int) -> int:
    return (end_ns - start_ns) // 1_000_000


class _RequestSpan:
    def __init__(self, recorder: Recorder, model: str) -> None:
        self._recorder = recorder
        self._model = model
        self._start = 0
        self._first: int | None = None
        self._span: trace.Span | None = None

    def __enter__(self) -> _RequestSpan:
        self._start = time.monotonic_ns()
        spans = self._recorder.spans
        self._span = spans.start("wave.llm_request", spans.parent(), {"model": self._model})
        return self

    def delta(self) -> None:
        if self._first is None:
            self._first = time.monotonic_ns()

    def replied(self, usage: Usage | None, has_tool_call: bool) -> None:
        span = self._span
        if span is None:
            return
        if usage is not None:
            span.set_attributes(
                {
                    "input_tokens": usage.prompt_tokens,
                    "output_tokens": usage.completion_tokens,
                    "cache_read_tokens": usage.cache_read_tokens,
                    "cache_creation_tokens": usage.cache_creation_tokens,
                }
            )
            self._recorder.tokens(usage, self._model)
        span.set_attributes({"success": True, "has_tool_call": has_tool_call})

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        span = self._span
        if span is None:
            return
        end = time.monotonic_ns()
        first = self._first if self._first is not None else end
        span.set_attributes({"ttft_ms": _ms(self._start, first), "ttlt_ms": _ms(self._start, end)})
        if error is not None:
            allowed = request_content_allowed(self._recorder.config)
            error_class = exception_class(error)
            message = exception_text(error, allowed)
            span.set_attributes({"success": False, "error": message})
            span.set_status(Status(StatusCode.ERROR, message))
            if error_class != "aborted":
                self._recorder.event(
                    "error",
                    {
                        "error_type": type(error).__name__,
                        "error_class": error_class,
                        "message": message,
                        "stack": exception_stack(error, allowed),
                    },
                    span,
                )
        self._recorder.spans.end(span)


class RequestTelemetry:
    """`RequestWatcher`: one `wave.llm_request` span per model request."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

    def watch_request(self, model: str) -> _RequestSpan:
        return _RequestSpan(self._recorder, model)


# req: OT7
class _ToolSpan:
    def __init__(self, recorder: Recorder, call: ToolCallInfo) -> None:
        self._recorder = recorder
        self._call = call
        self._start = 0
        self._span: trace.Span | None = None
        self._current: AbstractContextManager[None] = nullcontext()

    def __enter__(self) -> _ToolSpan:
        recorder = self._recorder
        self._start = time.monotonic_ns()
        span = recorder.spans.start(
            "wave.tool", recorder.spans.parent(), {"tool_name": self._call.name}
        )
        if recorder.config.log_tool_content:
            span.set_attribute("tool_input", clipped(json.dumps(self._call.args, default=str)))
        self._span = span
        self._current = recorder.spans.current(span)
        self._current.__enter__()
        return self

    def finished(self, outcome: ToolOutcome) -> None:
        span, recorder, result = self._span, self._recorder, outcome.result
        if span is None:
            return
        span.set_attribute("success", not result.is_error)
        if result.is_error:
            span.set_attribute("error", tool_error_text(result, recorder.config))
        if recorder.config.log_tool_content:
            span.set_attribute("tool_output", clipped(result.content))
        refused = result.is_error and result.summary == REFUSED_SUMMARY
        decision = "reject" if refused else "accept"
        source = "user" if id(span) in recorder.asked else "config"
        name = self._call.name
        recorder.event(
            "tool_decision", {"tool_name": name, "decision": decision, "source": source}, span
        )
        recorder.counters.tool_decisions.add(1, {"tool_name": name, "decision": decision})
        if result.diff:
            recorder.lines_changed(result.diff)
        elif created_lines(self._call, result):
            recorder.counters.lines.add(created_lines(self._call, result), {"type": "added"})
        for path in result.written_paths:
            recorder.memory_write(path, "main", span)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._current.__exit__(kind, error, tb)
        span = self._span
        if span is None:
            return
        self._recorder.asked.discard(id(span))
        span.set_attribute("duration_ms", _ms(self._start, time.monotonic_ns()))
        if error is not None:
            message = exception_text(error, self._recorder.config.log_tool_content)
            span.set_attributes({"success": False, "error": message})
        self._recorder.spans.end(span)


class ToolTelemetry:
    """`ToolWatcher`: one `wave.tool` span per call, current while the call runs."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

    def watch_tool(self, call: ToolCallInfo) -> _ToolSpan:
        return _ToolSpan(self._recorder, call)


# req: FH10
def created_lines(call: ToolCallInfo, result: ToolResult) -> int:
    """The lines of a file a Write created (no diff: nothing was there before)."""
    if call.name != WRITE or result.is_error or result.diff or not result.written_paths:
        return 0
    content = call.args.get("content") if isinstance(call.args, dict) else None
    return len(content.splitlines()) if isinstance(content, str) else 0
