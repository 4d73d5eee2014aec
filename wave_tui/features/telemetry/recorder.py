"""What the telemetry hooks share: the SDK, the open spans, and the few records several of them
make (events with the session's id, token counts, memory writes, lines changed)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from opentelemetry import trace
from opentelemetry.util.types import AttributeValue

from wave_tui.agent.events import MemoryWriteSource
from wave_tui.config.paths import WavePaths
from wave_tui.features.telemetry.memory_scope import memory_scope
from wave_tui.features.telemetry.runtime import Telemetry
from wave_tui.features.telemetry.spans import SpanBook
from wave_tui.llm.types import Usage

CONTENT_LIMIT = 4096  # characters of a prompt or tool content kept in one attribute


def clipped(text: str) -> str:
    return text if len(text) <= CONTENT_LIMIT else text[:CONTENT_LIMIT] + "…"


def diff_lines(diff: str) -> tuple[int, int]:
    """(added, removed) lines of a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


class Recorder:
    def __init__(
        self, telemetry: Telemetry, paths: WavePaths, session_id: Callable[[], str]
    ) -> None:
        self.telemetry = telemetry
        self.config = telemetry.config
        self.counters = telemetry.counters
        self.paths = paths
        self.session_id = session_id
        self.spans = SpanBook(telemetry.tracer, telemetry.config.span_ttl_ms)
        self.total_tokens = 0
        # Tool spans (by id) whose call asked the user: their decision's source is the user.
        self.asked: set[int] = set()

    def event(
        self,
        name: str,
        attributes: Mapping[str, AttributeValue],
        span: trace.Span | None = None,
    ) -> None:
        self.telemetry.event(name, {"session.id": self.session_id(), **attributes}, span)

    def tokens(self, usage: Usage, model: str) -> None:
        counts = {
            "input": usage.prompt_tokens,
            "output": usage.completion_tokens,
            "cache_read": usage.cache_read_tokens,
            "cache_creation": usage.cache_creation_tokens,
        }
        for kind, count in counts.items():
            if count:
                self.counters.tokens.add(count, {"type": kind, "model": model})
        self.total_tokens += usage.prompt_tokens + usage.completion_tokens

    def memory_write(
        self, path: Path, source: MemoryWriteSource, span: trace.Span | None = None
    ) -> None:
        scope = memory_scope(path, self.paths)
        if scope is None:
            return
        self.event("memory_write", {"path": str(path), "scope": scope, "source": source}, span)
        self.counters.memory_writes.add(1, {"scope": scope, "source": source})

    def lines_changed(self, diff: str) -> None:
        added, removed = diff_lines(diff)
        if added:
            self.counters.lines.add(added, {"type": "added"})
        if removed:
            self.counters.lines.add(removed, {"type": "removed"})
