"""The open spans of a session and who is whose parent.

The current span is a context variable: a tool call's watch sets it in the call's own task, so
calls that run at once (Agent calls gathered together) each keep the interaction as parent and a
subagent's requests and calls, made inside its Agent call, nest under that call. Where none is
set (the main loop), the interaction open now is the parent.

Open spans are kept with their start; one older than `OTEL_SPAN_TTL_MS` is dropped — forgotten
and never exported — so a session that runs for days holds no span forever.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from opentelemetry import trace
from opentelemetry.util.types import Attributes

_CURRENT: ContextVar[trace.Span | None] = ContextVar("wave_telemetry_span", default=None)


# req: OT4
class SpanBook:
    def __init__(self, tracer: trace.Tracer, ttl_ms: int) -> None:
        self._tracer = tracer
        self._ttl_ns = ttl_ms * 1_000_000
        self._open: dict[int, tuple[trace.Span, int]] = {}
        self.interaction: trace.Span | None = None  # the turn running now
        self.last_interaction: trace.Span | None = None  # the turn that ended last

    def parent(self) -> trace.Span | None:
        current = _CURRENT.get()
        return current if current is not None else self.interaction

    def start(self, name: str, parent: trace.Span | None, attributes: Attributes) -> trace.Span:
        self._sweep()
        context = trace.set_span_in_context(parent) if parent is not None else None
        span = self._tracer.start_span(name, context=context, attributes=attributes)
        self._open[id(span)] = (span, time.monotonic_ns())
        return span

    def end(self, span: trace.Span) -> None:
        """Ends (and so exports) the span, unless it outlived the TTL: then it is dropped."""
        kept = self._open.pop(id(span), None)
        if kept is None:
            return  # dropped by a sweep already
        if time.monotonic_ns() - kept[1] > self._ttl_ns:
            return
        span.end()

    def _sweep(self) -> None:
        now = time.monotonic_ns()
        for key, (span, started) in list(self._open.items()):
            if now - started > self._ttl_ns:
                del self._open[key]
                if span is self.interaction:
                    self.interaction = None

    @contextmanager
    def current(self, span: trace.Span) -> Iterator[None]:
        """`span` is the parent of what starts inside this block (in this task)."""
        token = _CURRENT.set(span)
        try:
            yield
        finally:
            _CURRENT.reset(token)
