"""`ruleCheck: "turn"` (MR3): after each completed turn one fast-model request checks the turn's
tool calls against the rules and AGENTS.md lines in force. Each violation is shown in one notice
(`rule <id> may be broken by <call>: <reason>`), recorded in the transcript as an isMeta
message, counted for `/context` and kept for the extraction fork."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from wave_tui.agent import events as ev
from wave_tui.agent.extensions import (
    ToolCallInfo,
    TurnContinuation,
    TurnEnd,
    TurnObserverBase,
)
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import EffectiveSettings
from wave_tui.llm.client import ModelClient
from wave_tui.llm.errors import ModelError
from wave_tui.llm.types import Message
from wave_tui.memory.catalog import build_catalog, rule_entry_id
from wave_tui.memory.injection import REMINDER_CLOSE, REMINDER_OPEN
from wave_tui.memory.rule_check import (
    CheckedCall,
    RuleInForce,
    Violation,
    calls_of,
    check_calls,
    rules_in_force,
    save_violations,
)
from wave_tui.memory.rule_discovery import discover_rules
from wave_tui.permissions.hook_verdict import NO_VERDICT, HookVerdict
from wave_tui.permissions.tool_table import BASH, EDIT, WRITE

META_RULE_VIOLATIONS = "ruleViolations"
CHECKED_TOOLS = frozenset({WRITE, EDIT, BASH})


def turn_messages(messages: list[Message]) -> list[Message]:
    """The messages of the last turn: after its prompt (the last plain user message)."""
    for at in range(len(messages) - 1, -1, -1):
        message = messages[at]
        if message.role == "user" and not message.is_meta and message.kind == "normal":
            return messages[at + 1 :]
    return list(messages)


class RuleCheckHook(TurnObserverBase):
    def __init__(
        self,
        paths: WavePaths,
        *,
        settings: Callable[[], EffectiveSettings],
        messages: Callable[[], list[Message]],
        record: Callable[[Message], None],
        client: Callable[[], ModelClient],
        model: Callable[[], str | None],
        session_id: Callable[[], str],
        notify: Callable[[str, str], None],
        publish: Callable[[ev.AgentEvent], None] = lambda _event: None,
    ) -> None:
        self.paths = paths
        self.publish = publish
        self.settings = settings
        self.messages = messages
        self.record = record
        self.client = client
        self.model = model
        self.session_id = session_id
        self.notify = notify
        self.found: list[Violation] = []  # this session's, for `/context`

    # req: MR3
    async def on_turn_end(self, end: TurnEnd) -> TurnContinuation | None:
        settings = self.settings()
        if end.status != "completed" or settings.rule_check == "off":
            return None
        calls = calls_of(turn_messages(self.messages()))
        model = settings.fast_model or self.model()
        if not calls or not model:
            return None
        rules = rules_in_force(await asyncio.to_thread(build_catalog, self.paths))
        try:
            violations = await check_calls(self.client(), model, rules, calls)
        except ModelError as exc:
            self.notify("warning", f"rule check failed: {exc}")
            return None
        if violations:
            self._report(violations)
            await asyncio.to_thread(
                save_violations, self.paths.project_dir, self.session_id(), violations
            )
        return None

    # req: MR3
    async def decide(self, call: ToolCallInfo) -> HookVerdict:
        """`ruleCheck: "write"`: a Write, Edit or Bash that a path-scoped rule covers is checked
        against those rules first; a violation asks the user, showing the rule."""
        settings = self.settings()
        if settings.rule_check != "write" or call.name not in CHECKED_TOOLS:
            return NO_VERDICT
        model = settings.fast_model or self.model()
        covering = await asyncio.to_thread(self._covering, call)
        if not covering or not model:
            return NO_VERDICT
        try:
            violations = await check_calls(
                self.client(), model, covering, [CheckedCall(call.name, call.args)]
            )
        except ModelError as exc:
            self.notify("warning", f"rule check failed: {exc}")
            return NO_VERDICT
        if not violations:
            return NO_VERDICT
        self.found.extend(violations)
        await asyncio.to_thread(
            save_violations, self.paths.project_dir, self.session_id(), violations
        )
        for violation in violations:
            self.publish(ev.RuleViolated(violation.rule.id, violation.call.tool, "write"))
        said = "; ".join(f'{v.notice()} — the rule: "{v.rule.text}"' for v in violations)
        return HookVerdict("ask", said)

    def _covering(self, call: ToolCallInfo) -> list[RuleInForce]:
        """The path-scoped rules whose patterns match the file the call writes (Write, Edit)
        or a path its command names (Bash)."""
        rules = discover_rules(self.paths, lambda _message: None)
        root = self.paths.project_root
        targets = [call.facts.target] if call.facts.target is not None else []
        if call.name == BASH:
            words = str(call.args.get("command", "")).split()
            targets += [root / word for word in words if not word.startswith("-")]
        found: dict[str, RuleInForce] = {}
        for target in targets:
            for rule, pattern in rules.match(target):
                entry_id = rule_entry_id(rule)
                text = f"{rule.body.strip()} (applies to {pattern})"
                found.setdefault(entry_id, RuleInForce(entry_id, "rule", text))
        return list(found.values())

    def _report(self, violations: list[Violation]) -> None:
        self.found.extend(violations)
        for violation in violations:
            self.publish(ev.RuleViolated(violation.rule.id, violation.call.tool, "turn"))
        lines = [v.notice() for v in violations]
        self.notify("rule", "\n".join(lines))
        text = (
            f"{REMINDER_OPEN}\nThe rule check after this turn found calls that may break the "
            "user's rules:\n" + "\n".join(f"- {line}" for line in lines) + f"\n{REMINDER_CLOSE}"
        )
        meta = {META_RULE_VIOLATIONS: json.loads(json.dumps([v.to_json() for v in violations]))}
        self.record(Message.user(text, is_meta=True, **meta))
