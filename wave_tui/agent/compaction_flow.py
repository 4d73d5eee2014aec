"""Compaction as the loop runs it: `/compact`, automatically before a request once the last
usage crossed the limit, and when the endpoint refused a request as too long for its window; a
failed summary leaves the conversation as it was (the breaker counts).

A refusal teaches the window (`ContextWindows`) and the compaction is fitted to it: the summary,
the kept rounds and the restoration leave the next request room (CV11). After a refusal the
compacted conversation becomes a new linked session only once the request it makes has been
accepted, so a failed attempt leaves no session behind; two failures in a row stop with one line
saying what to do, and later messages are not compacted again and again.

Extensions with `run_pre_compact` / `run_post_compact` (the user hooks) see each compaction: the
PreCompact output joins the summary instructions, PostCompact gets the summary (HK7). Extensions
with `invoked_skills` / `running_work` add to the restoration (skills, background work)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.compaction import (
    META_COMPACTION,
    Budget,
    CompactionBreaker,
    CompactionError,
    CompactionPreview,
    CompactionResult,
    compact,
    describe_message,
    dropped_messages,
    recent_read_files,
    should_compact,
    with_dropped_record,
    with_edited_summary,
)
from wave_tui.agent.compaction_record import (
    CompactionBlocked,
    DroppedCounts,
    dropped_counts,
    dropped_line,
    record_meta,
    restored_files,
)
from wave_tui.agent.context_window import ContextWindows
from wave_tui.agent.conversation import Conversation
from wave_tui.agent.events import Emit
from wave_tui.agent.extensions import CompactionHooks, CompactionTrigger, Extensions
from wave_tui.agent.model_gateway import ModelTarget
from wave_tui.agent.restoration import MIN_ROOM
from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings
from wave_tui.llm.errors import ContextLengthExceeded, ModelError
from wave_tui.llm.replies import AssistantReply
from wave_tui.llm.types import Message, Usage
from wave_tui.llm.usage import estimate_prompt_tokens

Notify = Callable[[str, str], None]
Trigger = CompactionTrigger
Build = Callable[[list[Message]], dict[str, Any]]
Send = Callable[[dict[str, Any]], Awaitable[AssistantReply]]

BLOCKED_NOTICE = "compaction blocked by a PreCompact hook"
OVERFLOW_NOTICE = "the prompt did not fit the model's context window: compacted and sent again"
WINDOW_FULL = (
    "compaction cannot make this conversation fit {model}'s {window:,}-token context window: "
    "/clear to start over, or use a model with a larger window"
)
WINDOW_TOO_SMALL = (
    "{model}'s context size ({window:,} tokens) is too small for wave's instructions and tools "
    "alone (about {overhead:,} tokens): use a model with a larger window, or raise the server's "
    "context size"
)


class ContextWindowFull(ModelError):
    """The conversation cannot be made to fit the window: one line saying what to do (CV11)."""


@record
class PreparedCompaction:
    """A summary made, not yet the conversation: `commit` makes it so."""

    result: CompactionResult
    trigger: Trigger
    model: str
    dropped: list[str] = field(default_factory=list)  # one line per message summarised away
    last_id: str | None = None  # the conversation's last message when prepared
    counts: DroppedCounts = DroppedCounts(0, 0, 0)  # what was dropped, by kind (MR4)

    # req: MM7
    def preview(self) -> CompactionPreview:
        result = self.result
        return CompactionPreview(
            kept=[describe_message(m) for m in result.new_messages[1:]],
            dropped=list(self.dropped),
            summary=result.summary,
        )

    def with_summary(self, summary: str) -> PreparedCompaction:
        """This compaction with the user's edit of the summary draft."""
        result = self.result
        compress = with_edited_summary(result.new_messages[0], result.summary, summary)
        edited = replace(result, new_messages=[compress, *result.new_messages[1:]], summary=summary)
        return replace(self, result=edited)


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
        windows: ContextWindows | None = None,
        limit: Callable[[str], int] | None = None,
        overhead: Callable[[], int] | None = None,
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
        self.windows = windows if windows is not None else ContextWindows()
        self._limit = limit  # model -> the window in force (configured or learned)
        self._overhead = overhead  # estimated tokens of the next request without its messages
        self._window_model: str | None = None  # the model the window failures counted for
        self._window_size = 0  # and the window they counted against
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
        self._same_window(self._target().model)
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
        try:
            prepared = await self.prepare(instructions, trigger)
        except CompactionBlocked as exc:
            self._notify("warning", f"{BLOCKED_NOTICE}: {exc}")
            return False
        except CompactionError as exc:
            self.breaker.record_failure(exc.kind)
            self._notify("warning", f"compaction failed: {exc}")
            return False
        await self.commit(prepared)
        return True

    # req: MM7
    async def prepare_preview(self, instructions: str | None = None) -> PreparedCompaction | None:
        """`/compact`'s summary, made but not applied (the app previews it); None when it
        failed (said once, the breaker counts)."""
        try:
            return await self.prepare(instructions, "manual")
        except CompactionBlocked as exc:
            self._notify("warning", f"{BLOCKED_NOTICE}: {exc}")
            return None
        except CompactionError as exc:
            self.breaker.record_failure(exc.kind)
            self._notify("warning", f"compaction failed: {exc}")
            return None

    async def apply_preview(self, prepared: PreparedCompaction) -> bool:
        """Apply a previewed compaction, unless the conversation moved on since it was made."""
        if not self.is_current(prepared):
            self._notify("warning", "the conversation changed since the preview: /compact again")
            return False
        await self.commit(prepared)
        return True

    # req: CV11
    async def overflowed(
        self, error: ContextLengthExceeded, sent: dict[str, Any], build: Build, send: Send
    ) -> AssistantReply:
        """The endpoint refused `sent` as too long: learn the window, compact to fit it and send
        the request the compacted conversation makes (`build`, `send`); the compaction is kept
        only once that request is accepted. Raises ContextWindowFull when it cannot be made to
        fit, the error itself when the summary failed for another reason."""
        main = self._target().model
        while True:
            self.windows.learn(main, error, estimate_prompt_tokens(sent))
            self._same_window(main)
            if self.breaker.window_open:
                raise ContextWindowFull(self._stop_line(main)) from error
            if self.breaker.open:  # paused by failures of another kind (the summary model's)
                raise ContextWindowFull(self.breaker.paused_text()) from error
            try:
                prepared = await self.prepare(None, "auto")
            except CompactionBlocked as exc:
                self._notify("warning", f"{BLOCKED_NOTICE}: {exc}")
                raise error from exc
            except CompactionError as exc:
                self.breaker.record_failure(exc.kind)
                if exc.kind == "window" or self.breaker.open:
                    continue  # the breaker decides at the top of the loop
                self._notify("warning", f"compaction failed: {exc}")
                raise error from exc
            body = build(prepared.result.new_messages)
            try:
                reply = await send(body)
            except ContextLengthExceeded as again:
                self.breaker.record_failure("window")
                error, sent = again, body
                continue
            await self.commit(prepared)
            self._emit(ev.Notice("warning", OVERFLOW_NOTICE))
            return reply

    # req: FH10
    def _same_window(self, main: str) -> None:
        """Window failures count for one model at one window: another model, or the same one
        with another window (a server restarted with a larger context), starts from none."""
        window = self._window_for(main)
        if (main, window) != (self._window_model, self._window_size):
            self.breaker.reset_window()
            self._window_model, self._window_size = main, window

    def _stop_line(self, model: str) -> str:
        window = self._window_for(model)
        overhead = self._overhead() if self._overhead is not None else 0
        if overhead and self._budget_room(model) < MIN_ROOM:
            return WINDOW_TOO_SMALL.format(model=model, window=window, overhead=overhead)
        return WINDOW_FULL.format(model=model, window=window)

    def _window_for(self, model: str) -> int:
        return self._limit(model) if self._limit is not None else 0

    def _budget_room(self, main: str) -> int:
        overhead = self._overhead() if self._overhead is not None else 0
        return self.windows.budget(main, self._window_for(main)) - overhead

    def _budget(self, main: str, summary_model: str) -> Budget | None:
        if self._limit is None or self._overhead is None:
            return None
        summary = self.windows.budget(summary_model, self._window_for(summary_model))
        return Budget(self._budget_room(main), summary)

    async def _restoration_parts(self) -> tuple[list[str], list[tuple[str, str]]]:
        """Background work running now and the skills invoked in this conversation (its whole
        thread, across earlier compactions)."""
        extensions = self._extensions
        background = [line for e in extensions.running_work_sources for line in e.running_work()]
        sources = extensions.skill_sources
        skills: list[tuple[str, str]] = []
        if sources:
            thread = await asyncio.to_thread(self.conversation.full_thread)
            for source in sources:
                skills.extend(source.invoked_skills(thread))
        return background, skills

    def _plan_file(self) -> Path | None:
        if not self._plan_mode():
            return None
        plan = self.conversation.paths.plan_file(self.conversation.session_id)
        return plan if plan.is_file() else None

    # req: HK7
    # req: MR4
    async def prepare(self, instructions: str | None, trigger: Trigger) -> PreparedCompaction:
        """The summary and restoration, fitted to the window; raises CompactionError, or
        CompactionBlocked when a PreCompact hook said no (before anything else ran). The hooks
        run first: their instructions steer the summary, and the memory flush (an extraction
        over the turns about to be dropped) is one of them."""
        target = self._target()
        model = self._fast_model() or target.model
        conversation = self.conversation
        # The memory flush last: a hook that blocks the compaction stops it before any work.
        ordered = sorted(self._hooks(), key=lambda h: getattr(h, "flushes_memory", False))
        for hooks in ordered:
            instructions = _join(instructions, await hooks.run_pre_compact(trigger, instructions))
        settings = self._settings() if self._settings is not None else None
        options = settings.model_config_for(model).options if settings is not None else None
        budget = self._budget(target.model, model)
        if budget is not None and budget.room < MIN_ROOM:
            self.breaker.trip_window()  # no summary can help: say so at once
            raise CompactionError(self._stop_line(target.model), kind="window")
        self.running = True
        self._emit(ev.BackgroundChanged("compaction", True, f"compacting with {model}"))
        try:
            background, skills = await self._restoration_parts()
            for attempt in range(2):
                try:
                    result = await compact(
                        target.client,
                        model,
                        conversation.messages,
                        instructions,
                        recent_read_files(conversation.read_state),
                        conversation.paths.project_root,
                        plan_mode=self._plan_mode(),
                        background=background,
                        plan_file=self._plan_file(),
                        skills=skills,
                        options=options,
                        window_tokens=self.windows.known(model),
                        budget=budget,
                    )
                    break
                except CompactionError as exc:
                    if exc.overflow is None or attempt or budget is None:
                        raise
                    # The summary model's own window: learnt, the transcript is cut to it.
                    self.windows.learn(model, exc.overflow, exc.sent_tokens)
                    budget = self._budget(target.model, model)
        finally:
            self.running = False
            self._emit(ev.BackgroundChanged("compaction", False))
        gone = dropped_messages(conversation.messages, result.new_messages[1:])
        last = conversation.messages[-1].id if conversation.messages else None
        described = [describe_message(m) for m in gone]
        return PreparedCompaction(result, trigger, model, described, last, dropped_counts(gone))

    def is_current(self, prepared: PreparedCompaction) -> bool:
        """Nothing was added to the conversation since `prepared` was made (a preview waited)."""
        messages = self.conversation.messages
        return (messages[-1].id if messages else None) == prepared.last_id

    # req: HK7
    async def commit(self, prepared: PreparedCompaction) -> None:
        """The summary becomes the conversation: a new session linked to the old one."""
        result = prepared.result
        conversation = self.conversation
        self.breaker.record_success()
        if result.usage is not None:
            self._emit(ev.UsageUpdated(result.usage, prepared.model, source="compact"))
        kept = result.new_messages[1:]
        restored = restored_files(result.new_messages[0])
        compress = with_dropped_record(result.new_messages[0], prepared.dropped, len(kept))
        meta = {**compress.meta[META_COMPACTION], **record_meta(prepared.counts, restored)}
        compress = compress.model_copy(update={"meta": {**compress.meta, META_COMPACTION: meta}})
        conversation.replace_after_compaction([compress, *kept])
        self._restored()
        for hooks in self._hooks():
            await hooks.run_post_compact(prepared.trigger, result.summary)
        self._notify(
            "compaction",
            f"compacted {result.summarised_count} messages into a summary "
            f"({dropped_line(prepared.counts, restored)}); session {conversation.session_id}",
        )
