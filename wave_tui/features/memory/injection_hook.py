"""AGENTS.md, rules and nested memory in the request, exactly as I1–I2 / R2–R5 / D1–D7 say."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wave_tui.agent.extensions import (
    ContextSourceBase,
    SessionObserverBase,
    StatusContribution,
    ToolOutcome,
)
from wave_tui.config.clock import Clock, system_clock
from wave_tui.config.effective import resolve_max_input_tokens
from wave_tui.config.paths import WavePaths
from wave_tui.llm.types import Message
from wave_tui.memory.catalog import rule_entry_id
from wave_tui.memory.injection import MemoryInjector
from wave_tui.memory.loads import record_loads
from wave_tui.memory.oversize import oversize_warnings
from wave_tui.memory.prompts import render_manual_memory_guidance
from wave_tui.memory.rules import RuleSet

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings

Notify = Callable[[str, str], None]


class MemoryInjectionHook(ContextSourceBase, SessionObserverBase):
    """ContextSource (guidance, the reminder), ToolObserver (rules and nested memory after a
    tool), SessionObserver (restore) and StatusSource (rule activations)."""

    def __init__(self, paths: WavePaths, notify: Notify, clock: Clock = system_clock) -> None:
        self.paths = paths
        self.notify = notify
        self.clock = clock
        self.injector = MemoryInjector(paths, warn=lambda text: notify("warning", text))
        self._counted_rules: RuleSet | None = None  # the rule set whose always-rules are counted
        self._counted: set[str] = set()  # always-rules counted as loaded in this session
        self.window: int | None = None  # the input window in force (the oversize warning)
        self._oversize_told: set[str] = set()

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        return [
            render_manual_memory_guidance(self.paths.project_agents_md, self.paths.user_agents_md)
        ]

    def status(self) -> StatusContribution:
        # Why each conditional rule is loaded in this session: rule id -> (trigger file, pattern).
        return StatusContribution(rule_activations=dict(self.injector.activations))

    def prepend_reminder(self) -> str | None:
        # Rebuilt for every request from disk (cached by mtime): never persisted (I1, R2).
        text = self.injector.reminder_text()
        self._count_unconditional()
        self._warn_oversize()
        return text

    def on_settings(self, settings: EffectiveSettings) -> None:
        self.window = resolve_max_input_tokens(settings, settings.model)

    # req: MR6
    def oversize(self) -> list[str]:
        """The always-loaded memories over 40,000 characters or 10% of the window now."""
        return [line for _name, line in oversize_warnings(self.injector.large_parts, self.window)]

    def _warn_oversize(self) -> None:
        """Each oversize memory is said once a session, not at every request."""
        for name, line in oversize_warnings(self.injector.large_parts, self.window):
            if name not in self._oversize_told:
                self._oversize_told.add(name)
                self.notify("warning", line)

    # req: MM6
    def _count_unconditional(self) -> None:
        """An always-rule counts one load per session (and again once edited in): not one per
        request, so a long session does not grow the log by every rule at every request."""
        rules = self.injector.current_rules()
        if rules is self._counted_rules:
            return
        self._counted_rules = rules
        fresh = [
            entry_id
            for rule in rules.unconditional()
            if (entry_id := rule_entry_id(rule)) not in self._counted
        ]
        self._counted.update(fresh)
        record_loads(self.paths.memory_loads_file, fresh, self.clock())

    async def after_tool(self, outcome: ToolOutcome) -> None:
        if not outcome.result.is_error:
            outcome.follow_ups.extend(self._follow_ups(outcome))

    def _follow_ups(self, outcome: ToolOutcome) -> list[Message]:
        messages = self.injector.on_tool_result(outcome.result)
        self._count_conditional(messages)
        for message in messages:
            if "ruleId" in message.meta:
                self.notify(
                    "rule",
                    f"rule {message.meta['ruleId']} loaded ({message.meta.get('trigger')} "
                    f"matches {message.meta.get('pattern')})",
                )
            elif "nestedMemory" in message.meta:
                self.notify("memory", f"loaded {self._display(message.meta['nestedMemory'])}")
        return messages

    # req: MM6
    def _count_conditional(self, messages: list[Message]) -> None:
        rules = self.injector.current_rules()
        loaded = [rules.get(str(m.meta["ruleId"])) for m in messages if "ruleId" in m.meta]
        ids = [rule_entry_id(rule) for rule in loaded if rule is not None]
        record_loads(self.paths.memory_loads_file, ids, self.clock())

    def on_workdir_changed(self, old: Path, new: Path) -> None:
        # In a worktree, AGENTS.md, rules and nested memory are the worktree's (WT4); the auto
        # memory folder is not read from here (the project id is the main repository's).
        self.paths = WavePaths.for_workdir(new, self.paths.home)
        self.injector.move_to(self.paths)

    def on_messages_restored(self, messages: list[Message]) -> None:
        self.injector.restore(messages)

    async def aclose(self) -> None:
        self.injector.close()

    def _display(self, raw: str) -> str:
        try:
            return str(Path(raw).relative_to(self.paths.project_root))
        except ValueError:
            return raw
