"""The facade's `AgentStatus` (U2): the service, the settings in force and what events said.

Two things only events tell: the background work running now (`BackgroundChanged`), and the
context size after a compaction or a restore, estimated as `/context` counts it until the next
reply reports real usage (the last reported usage still counts the history that was summarised,
so its cache hits are not shown either). A new conversation (`/clear`) shows no figures until
its first reply (CV14).
"""

from __future__ import annotations

from wave_tui.agent import events as ev
from wave_tui.agent.status import AgentStatus, cache_hit_ratio, context_tokens
from wave_tui.session.core import SessionCore

# Events after which the status may read differently.
STATUS_EVENTS = (
    ev.BusyChanged,
    ev.TurnEnded,
    ev.UsageUpdated,
    ev.ErrorOccurred,
    ev.QueueChanged,
    ev.BackgroundChanged,
)


class StatusTracker:
    def __init__(self, core: SessionCore) -> None:
        self._core = core
        self._background: dict[str, str] = {}
        self._context_estimate: int | None = None  # after a compaction, until the next reply
        self._usage_stale = False  # the last usage is of a conversation since replaced

    # req: UX8
    # req: CV14
    def saw(self, event: ev.AgentEvent) -> bool:
        """Note what a service event changes; True when the status may read differently."""
        if isinstance(event, ev.BackgroundChanged):
            if event.running:
                self._background[event.kind] = event.detail
            else:
                self._background.pop(event.kind, None)
        compacted = isinstance(event, ev.Notice) and event.kind == "compaction"
        cleared = isinstance(event, ev.Notice) and event.kind == "session"
        if compacted:
            self._context_estimate = self._estimate_context()
            self._usage_stale = True
        elif cleared or (isinstance(event, ev.UsageUpdated) and event.source == "main"):
            self._context_estimate = None
            self._usage_stale = False
        return compacted or cleared or isinstance(event, STATUS_EVENTS)

    # req: UX3
    def restored(self) -> bool:
        """A conversation restored at start: its context is estimated until the first reply
        (True when it was, so the status changed)."""
        service = self._core.service
        if service is None or not service.messages or service.last_usage is not None:
            return False
        self._context_estimate = self._estimate_context()  # resumed: ctx shown
        return True

    def _estimate_context(self) -> int:
        """What the next request would send — system prompt, tools, memory and messages, as
        `/context` counts it — not the messages alone (a resumed chat showed 0.6k for 7.5k)."""
        service = self._core.service
        if service is None:
            return 0
        from wave_tui.features.memory.context_report import build_context_report

        return build_context_report(service).total_tokens

    # req: U2
    # req: PV9
    def status(self) -> AgentStatus:
        settings = self._core.store.current()
        service = self._core.service
        model = service.model if service is not None else settings.model
        configured = bool(service is not None and model and settings.base_url)
        usage = service.last_usage if service is not None else None
        # The configured window, lowered to what the endpoint said (Ollama's num_ctx, PV11; the
        # numbers of a context-length refusal).
        window = service.runner.input_limit(model) if service is not None and model else None
        background = None
        if self._background:
            kind, detail = next(reversed(self._background.items()))
            background = f"{kind}{': ' + detail if detail else ''}"
        return AgentStatus(
            model=model if configured else None,
            configured=configured,
            busy=bool(service is not None and service.busy),
            context_tokens=(
                self._context_estimate
                if self._context_estimate is not None
                else context_tokens(usage)
            ),
            context_window=window,
            context_estimated=self._context_estimate is not None
            or bool(usage is not None and usage.estimated),
            cache_hit_ratio=None if self._usage_stale else cache_hit_ratio(usage),
            auto_memory=settings.auto_memory_enabled
            and not (service is not None and service.status().auto_memory_unusable),
            auto_memory_frequency=settings.auto_memory_frequency,
            turns_until_extraction=service.turns_until_next if service is not None else None,
            extraction_running=bool(service is not None and service.background_busy),
            compacting=bool(service is not None and service.compacting),
            permission_mode=service.policy.mode if service is not None else "default",
            queue=tuple(service.queue) if service is not None else (),
            background=background,
            worktree=service.status().worktree if service is not None else None,
            memory_writes=settings.auto_memory_writes,
        )
