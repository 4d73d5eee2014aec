"""The session's telemetry on the loop's seams: the `wave.interaction` span of each turn, the
`wave.extraction` span of each fork run, and the events of 004 §16 — `session_start`,
`session_end`, `user_prompt`, `compaction`, `memory_write` (main, fork or user) — with their
metrics. Prompt text only with `OTEL_LOG_USER_PROMPTS=1`.

On close it says `session_end` and flushes within `OTEL_SHUTDOWN_TIMEOUT_MS`, from a thread of
its own: a collector that is down or slow costs the exit that long at most, and one warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from opentelemetry import trace

from wave_tui.agent import events as ev
from wave_tui.agent.extensions import (
    CompactionTrigger,
    SessionObserverBase,
    TurnContinuation,
    TurnEnd,
    TurnObserverBase,
    TurnStart,
)
from wave_tui.config.effective import EffectiveSettings
from wave_tui.config.records import record
from wave_tui.features.telemetry.error_class import extraction_error_text
from wave_tui.features.telemetry.recorder import Recorder, clipped
from wave_tui.features.telemetry.runtime import TOO_SLOW


@record
class TelemetryHost:
    """The agent as the session's telemetry sees it."""

    workdir: Path
    model: Callable[[], str | None]
    prompt_tokens: Callable[[], int]  # the next request's size, as estimated (compaction)


def stderr_warning(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"wave: warning: {text}\n")
        sys.stderr.flush()


class Warner:
    """Says a warning from any thread (exporters run in the SDK's): a notice on the agent's
    loop while the session runs, a stderr line once it is closing (nobody listens then)."""

    def __init__(self, notify: Callable[[str, str], None]) -> None:
        self._notify = notify
        self.loop: asyncio.AbstractEventLoop | None = None
        self.closing = False

    def seen_loop(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.loop = asyncio.get_running_loop()

    def __call__(self, text: str) -> None:
        loop = self.loop
        if self.closing or loop is None or loop.is_closed():
            stderr_warning(text)
            return
        try:
            loop.call_soon_threadsafe(self._notify, "warning", text)
        except RuntimeError:
            stderr_warning(text)


class TelemetryHook(TurnObserverBase, SessionObserverBase):
    def __init__(self, recorder: Recorder, host: TelemetryHost, warner: Warner) -> None:
        self._recorder = recorder
        self._host = host
        self._warner = warner
        self._started_at = time.monotonic()
        self._session_started = False
        self._sequence = 0
        self._before_compaction = 0
        self._compact_model = ""
        self._extraction: trace.Span | None = None
        self._extraction_tokens = [0, 0]

    # -- the session -------------------------------------------------------------------------
    def on_settings(self, settings: EffectiveSettings) -> None:
        self._warner.seen_loop()
        if self._session_started:
            return
        self._session_started = True
        self._recorder.event(
            "session_start",
            {
                "sessionId": self._recorder.session_id(),
                "model": self._host.model() or "",
                "workdir": str(self._host.workdir),
            },
        )

    # req: OT8
    async def aclose(self) -> None:
        if self._warner.closing:
            return
        self._warner.closing = True
        recorder = self._recorder
        spans = recorder.spans
        if spans.interaction is not None:
            spans.interaction.set_attribute("interaction.status", "aborted")
            spans.end(spans.interaction)
            spans.interaction = None
        recorder.event(
            "session_end",
            {
                "duration": int((time.monotonic() - self._started_at) * 1000),
                "totalTokens": recorder.total_tokens,
                "exitReason": "exit",
            },
        )
        loop = asyncio.get_running_loop()
        done = asyncio.Event()

        def flush() -> None:
            try:
                recorder.telemetry.shutdown()
            except Exception as exc:  # a failing exporter never fails the exit
                recorder.telemetry.once(f"telemetry: {type(exc).__name__}: {exc}")
            finally:
                with contextlib.suppress(RuntimeError):  # the loop may be gone already
                    loop.call_soon_threadsafe(done.set)

        # A daemon thread: an export stuck on a collector never holds the process at exit.
        threading.Thread(target=flush, name="wave-telemetry-flush", daemon=True).start()
        timeout_ms = recorder.config.shutdown_timeout_ms
        try:
            await asyncio.wait_for(done.wait(), timeout_ms / 1000)
        except TimeoutError:
            recorder.telemetry.once(TOO_SLOW.format(ms=timeout_ms))

    # -- turns -------------------------------------------------------------------------------
    # req: OT4
    # req: OT7
    async def on_turn_start(self, prompt: str) -> TurnStart:
        self._warner.seen_loop()
        recorder = self._recorder
        spans = recorder.spans
        if spans.interaction is not None:  # a turn that never said it ended
            spans.end(spans.interaction)
        self._sequence += 1
        attributes: dict[str, str | int] = {
            "user_prompt_length": len(prompt),
            "interaction.sequence": self._sequence,
        }
        if recorder.config.log_user_prompts:
            attributes["user_prompt"] = clipped(prompt)
        span = spans.start("wave.interaction", None, attributes)
        spans.interaction = span
        event: dict[str, str | int] = {"prompt_length": len(prompt)}
        if recorder.config.log_user_prompts:
            event["prompt"] = clipped(prompt)
        recorder.event("user_prompt", event, span)
        return TurnStart()

    async def on_turn_end(self, end: TurnEnd) -> TurnContinuation | None:
        spans = self._recorder.spans
        span = spans.interaction
        if span is not None:
            span.set_attribute("interaction.status", end.status)
            spans.interaction = None
            spans.last_interaction = span
            spans.end(span)
        return None

    # -- compaction --------------------------------------------------------------------------
    async def run_pre_compact(self, trigger: CompactionTrigger, custom: str | None) -> str:
        self._before_compaction = self._host.prompt_tokens()
        return ""

    async def run_post_compact(self, trigger: CompactionTrigger, summary: str) -> None:
        self._recorder.event(
            "compaction",
            {
                "beforeTokens": self._before_compaction,
                "afterTokens": self._host.prompt_tokens(),
                "model": self._compact_model or self._host.model() or "",
                "trigger": trigger,
            },
        )

    # -- what the agent announces ------------------------------------------------------------
    # req: OT5
    # req: OT6
    def on_event(self, event: ev.AgentEvent) -> None:
        recorder = self._recorder
        if isinstance(event, ev.MemoryChanged):
            for path in event.paths:
                span = self._extraction if event.source == "fork" else None
                recorder.memory_write(path, event.source, span)
        elif isinstance(event, ev.RuleViolated):
            attributes = {"rule_id": event.rule_id, "tool_name": event.tool, "check": event.check}
            recorder.event("rule_violation", attributes, recorder.spans.parent())
        elif isinstance(event, ev.PermissionRequested):
            current = recorder.spans.parent()
            if current is not None:
                recorder.asked.add(id(current))
        elif isinstance(event, ev.UsageUpdated) and event.source != "main":
            recorder.tokens(event.usage, event.model)  # the main loop's are counted per request
            if event.source == "compact":
                self._compact_model = event.model
            else:
                self._extraction_tokens[0] += event.usage.prompt_tokens
                self._extraction_tokens[1] += event.usage.completion_tokens
        elif isinstance(event, ev.BackgroundChanged) and event.kind == "extraction":
            if event.running and self._extraction is None:
                self._extraction_tokens = [0, 0]
                spans = recorder.spans
                parent = spans.interaction or spans.last_interaction
                self._extraction = spans.start("wave.extraction", parent, {})
        elif isinstance(event, ev.ExtractionFinished) and self._extraction is not None:
            span, self._extraction = self._extraction, None
            span.set_attributes(
                {
                    "success": event.error is None and not event.cancelled,
                    "cancelled": event.cancelled,
                    "written": len(event.written),
                    "input_tokens": self._extraction_tokens[0],
                    "output_tokens": self._extraction_tokens[1],
                }
            )
            if event.error is not None:
                span.set_attribute("error", extraction_error_text(event.error, recorder.config))
            recorder.spans.end(span)
