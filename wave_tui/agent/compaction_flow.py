"""Compaction as the loop runs it: `/compact`, and automatically before a request once the last
usage crossed the limit; a failed summary leaves the conversation as it was (the breaker counts).

Extensions with `run_pre_compact` / `run_post_compact` (the user hooks) see each compaction: the
PreCompact output joins the summary instructions, PostCompact gets the summary (HK7)."""

from __future__ import annotations

from collections.abc import Callable

from wave_tui.agent import events as ev
from wave_tui.agent.compaction import (
    CompactionBreaker,
    CompactionError,
    compact,
    recent_read_files,
    should_compact,
)
from wave_tui.agent.conversation import Conversation
from wave_tui.agent.events import Emit
from wave_tui.agent.extensions import CompactionHooks, CompactionTrigger, Extensions
from wave_tui.agent.model_gateway import ModelTarget
from wave_tui.config.settings import EffectiveSettings
from wave_tui.llm.types import Usage

Notify = Callable[[str, str], None]
Trigger = CompactionTrigger


def _join(instructions: str | None, extra: str) -> str | None:
    parts = [p.strip() for p in (instructions, extra) if p and p.strip()]
    return "\n\n".join(parts) or None


class CompactionFlow:
    def __init__(
        self,
        *,
        conversation: Conversation,
        target: Callable[[], ModelTarget],
        fast_model: Callable[[], str | None],
        plan_mode: Callable[[], bool],
        emit: Emit,
        notify: Notify,
        restored: Callable[[], None],
        settings: Callable[[], EffectiveSettings] | None = None,
        extensions: Extensions | None = None,
    ) -> None:
        self.conversation = conversation
        self._target = target
        self._fast_model = fast_model
        self._plan_mode = plan_mode
        self._emit = emit
        self._notify = notify
        self._restored = restored  # the history was replaced: extensions rebuild their state
        self._settings = settings
        self._extensions = extensions or Extensions()
        self.breaker = CompactionBreaker()
        self.due = False
        self.running = False

    def reset(self) -> None:
        self.breaker = CompactionBreaker()
        self.due = False

    def after_usage(self, usage: Usage, limit: int) -> None:
        self.due = should_compact(usage, limit)

    async def compact_if_due(self) -> None:
        if not self.due:
            return
        self.due = False
        if self.breaker.open:
            warning = self.breaker.take_warning()
            if warning:
                self._notify("warning", warning)
            return
        await self.compact(None, trigger="auto")

    def _hooks(self) -> list[CompactionHooks]:
        return self._extensions.compaction_hooks

    # req: CP5
    async def compact(
        self, instructions: str | None = None, *, trigger: Trigger = "manual"
    ) -> bool:
        """Summarise all but the last rounds into a new, linked session. Never raises for a
        failed summary: the conversation goes on uncompacted (and the breaker counts)."""
        target = self._target()
        model = self._fast_model() or target.model
        conversation = self.conversation
        for hooks in self._hooks():  # req: HK7
            instructions = _join(instructions, await hooks.run_pre_compact(trigger, instructions))
        settings = self._settings() if self._settings is not None else None
        options = settings.model_config_for(model).options if settings is not None else None
        self.running = True
        self._emit(ev.BackgroundChanged("compaction", True, f"compacting with {model}"))
        try:
            result = await compact(
                target.client,
                model,
                conversation.messages,
                instructions,
                recent_read_files(conversation.read_state),
                conversation.paths.project_root,
                plan_mode=self._plan_mode(),
                background=[],
                options=options,
            )
        except CompactionError as exc:
            self.breaker.record_failure()
            self._notify("warning", f"compaction failed: {exc}")
            return False
        finally:
            self.running = False
            self._emit(ev.BackgroundChanged("compaction", False))
        self.breaker.record_success()
        if result.usage is not None:
            self._emit(ev.UsageUpdated(result.usage, model, source="compact"))
        conversation.replace_after_compaction(result.new_messages)
        self._restored()
        for hooks in self._hooks():
            await hooks.run_post_compact(trigger, result.summary)  # req: HK7
        self._notify(
            "compaction",
            f"compacted {result.summarised_count} messages into a summary; "
            f"session {conversation.session_id}",
        )
        return True
