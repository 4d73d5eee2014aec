"""The loop behind the `Agent` tool (AG3–AG5): a child `TurnRunner` over its own conversation.

The child has its own messages and transcript (`paths.subagent_transcript`), its own read state,
its definition's system prompt with the parent's memory guidance and reminder (AGENTS.md,
rules), the parent's tools as `tools_for` narrows them, and the parent's permission policy —
never wider: a read-only type runs in plan mode. The parent's tool guards (user hooks) and
locks still apply to each call. Progress goes out as `SubagentProgress` events; the child's
own stream events stay inside.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from wave_tui.agent import events as ev
from wave_tui.agent.commands import CommandRegistry, parse_command
from wave_tui.agent.compaction_flow import CompactionFlow
from wave_tui.agent.conversation import Conversation
from wave_tui.agent.extensions import (
    ContextSource,
    Extensions,
    RequestWatcher,
    ToolCallInfo,
    ToolDecider,
    ToolGuard,
    ToolLock,
    ToolPreparer,
    ToolWatcher,
)
from wave_tui.agent.model_gateway import ModelTarget
from wave_tui.agent.request import RequestBuilder, SystemPrompt
from wave_tui.agent.tool_executor import ToolExecutor, ToolPipeline, running_subagent
from wave_tui.agent.transcript import Transcript
from wave_tui.agent.turn_runner import TurnRunner
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import EffectiveSettings
from wave_tui.features.commands.model_aliases import resolve_model
from wave_tui.features.memory.injection_hook import MemoryInjectionHook
from wave_tui.features.subagents.definitions import (
    MAIN_MODEL,
    VISION_MODEL,
    SubagentDefinition,
    new_agent_id,
    tools_for,
)
from wave_tui.llm.types import Message, Usage
from wave_tui.permissions.hook_verdict import HookVerdict
from wave_tui.permissions.policy import PermissionMode, PermissionPolicy
from wave_tui.permissions.rules import PermissionRule, RuleSet
from wave_tui.tools.base import ToolContexts

if TYPE_CHECKING:
    from wave_tui.agent.service import AgentService

# Most permissive last: a child's mode is never later in this order than its parent's.
MODE_STRICTNESS: tuple[PermissionMode, ...] = (
    "plan",
    "default",
    "acceptEdits",
    "bypassPermissions",
)
SUBAGENT_PROMPT_PREFIX = "Task: "  # a prompt that looks like `/command` stays a prompt


class SubagentFailed(RuntimeError):
    pass


def child_mode(parent: PermissionMode, definition: SubagentDefinition) -> PermissionMode:
    """The stricter of the parent's mode and the definition's (plan for read-only types)."""
    # req: AG4
    wanted: PermissionMode = "plan" if definition.read_only else parent
    return min(parent, wanted, key=MODE_STRICTNESS.index)


def child_policy(parent: PermissionPolicy, definition: SubagentDefinition) -> PermissionPolicy:
    """The parent's rules, deny list and session grants, in the child's mode."""
    policy = copy.copy(parent)
    policy.mode = child_mode(parent.mode, definition)
    return policy


class GrantedRules(RuleSet):
    """The parent's rules and grants (a grant made in the child is the parent's too) plus
    `extra` allow rules for this child alone."""

    def __init__(self, parent: RuleSet, extra: Sequence[PermissionRule]) -> None:
        # No RuleSet state of its own: every list below is the parent's.
        self._parent = parent
        self._extra = tuple(extra)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._parent, name)  # `allow`, `deny`, `session`

    def replace(self, allow: Sequence[str], deny: Sequence[str]) -> None:
        self._parent.replace(allow, deny)

    def grant(self, rules: Sequence[PermissionRule]) -> None:
        self._parent.grant(rules)

    def allowing(self) -> Iterator[PermissionRule]:
        yield from self._parent.allowing()
        yield from self._extra


class _SubagentRequests(RequestBuilder):
    """The definition's prompt as the static block; environment and memory guidance after it."""

    def __init__(self, paths: WavePaths, started: datetime, prompt: str) -> None:
        super().__init__(paths, started)
        self._prompt = prompt

    def system_prompt(
        self, settings: EffectiveSettings, sources: Sequence[ContextSource]
    ) -> SystemPrompt:
        return SystemPrompt(self._prompt, super().system_prompt(settings, sources).dynamic)


class _MemoryContext:
    """A parent's memory source seen only as context: the child reads the same guidance and
    reminder, but never records rule activations in the parent's state."""

    def __init__(self, source: ContextSource) -> None:
        self._source = source

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        return self._source.system_sections(settings)

    def prepend_reminder(self) -> str | None:
        return self._source.prepend_reminder()

    def before_request(self) -> list[Message]:
        return []


class _Guard:
    def __init__(self, guard: ToolGuard) -> None:
        self._guard = guard

    async def check(self, call: ToolCallInfo) -> str | None:
        return await self._guard.check(call)


class _Decider:
    def __init__(self, decider: ToolDecider) -> None:
        self._decider = decider

    async def decide(self, call: ToolCallInfo) -> HookVerdict:
        return await self._decider.decide(call)


class _Lock:
    def __init__(self, lock: ToolLock) -> None:
        self._lock = lock

    def lock_for(self, call: ToolCallInfo) -> AbstractAsyncContextManager[None] | None:
        return self._lock.lock_for(call)


class _Preparer:
    def __init__(self, preparer: ToolPreparer) -> None:
        self._preparer = preparer

    async def before_run(self, call: ToolCallInfo) -> None:
        await self._preparer.before_run(call)


class _NoCompaction(CompactionFlow):
    """A subagent's run is one task: it is not compacted into a session of its own."""

    def after_usage(self, usage: Usage, limit: int) -> None:
        return None


class SubagentLoopRunner:
    """`SubagentRunner` over the service's client, policy, tools and extensions."""

    def __init__(self, service: AgentService) -> None:
        self.service = service

    # req: AG1
    # req: PH5
    def model_for(self, definition: SubagentDefinition) -> str:
        service = self.service
        main = service.model or ""
        if definition.model == MAIN_MODEL:
            return main
        if definition.model == VISION_MODEL:
            return service.settings.vision_model or main
        # `fast` and Claude Code's `sonnet`, `opus`, `haiku`: through settings `modelAliases`.
        return resolve_model(definition.model, service.settings) or main

    # req: AG4
    def _extensions(self) -> Extensions:
        """The child's registry: the parent's memory context, guards, locks and watchers,
        nothing else (no extraction fork, no Stop hooks, no task reminder)."""
        parent = self.service.extensions
        out = Extensions()
        injection = parent.of_type(MemoryInjectionHook)
        if injection is not None:
            out.add(_MemoryContext(injection), ContextSource)
        for guard in parent.guards:
            out.add(_Guard(guard), ToolGuard)
        for decider in parent.deciders:  # PreToolUse hooks hold in a subagent too
            out.add(_Decider(decider), ToolDecider)
        for lock in parent.locks:
            out.add(_Lock(lock), ToolLock)
        # Telemetry: the child's requests and calls are watched too, nested under its call.
        for request_watcher in parent.request_watchers:
            out.add(request_watcher, RequestWatcher)
        for tool_watcher in parent.tool_watchers:
            out.add(tool_watcher, ToolWatcher)
        for preparer in parent.preparers:  # a subagent's edits are checkpointed with the turn's
            out.add(_Preparer(preparer), ToolPreparer)
        return out

    async def run(
        self,
        definition: SubagentDefinition,
        prompt: str,
        description: str,
        on_progress: Callable[[str], None] | None = None,
        on_tokens: Callable[[int], None] | None = None,
        grants: Sequence[PermissionRule] = (),
    ) -> str:
        """`on_tokens` gets each model request's total tokens (a workflow run records them);
        `grants` allow more for this child only (what the user allowed a workflow run)."""
        service = self.service
        agent_id = new_agent_id()

        def progress(phase: ev.SubagentPhase, text: str = "") -> None:
            service.publish(ev.SubagentProgress(agent_id, description, phase, text))
            if on_progress is not None and phase in ("tool", "text"):
                on_progress(f"[{phase}] {text}")

        # req: SX5
        def emit(event: ev.AgentEvent) -> None:
            if isinstance(event, ev.UserMessageAdded):
                message = event.message
                service.publish(ev.SubagentMessageAdded(agent_id, "user", message.id, message))
            elif isinstance(event, ev.AssistantStarted):
                service.publish(ev.SubagentMessageAdded(agent_id, "assistant", event.message_id))
            elif isinstance(event, ev.UsageUpdated) and event.source == "main":
                service.publish(ev.SubagentTokens(agent_id, event.usage.total_tokens))
                if on_tokens is not None:
                    on_tokens(event.usage.total_tokens)
            elif isinstance(event, ev.AssistantFinished) and event.message.content.strip():
                progress("text", event.message.content.strip())
            elif isinstance(event, ev.ToolStarted):
                progress("tool", f"{event.name} {event.key_arg}".strip())
            elif isinstance(event, ev.Notice | ev.PermissionRequested):
                service.publish(event)

        conversation = Conversation(service.paths, emit)
        conversation.session_id = agent_id
        # req: AG3
        conversation.transcript = Transcript(
            service.paths.subagent_transcript(service.session_id, agent_id)
        )
        model = self.model_for(definition)
        tools = tools_for(definition, service.all_tools())
        extensions = self._extensions()
        policy = child_policy(service.policy, definition)
        if grants:
            policy.rules = GrantedRules(policy.rules, grants)

        headers = (service.options.subagent_headers or {}).get(definition.name)

        # req: SX2
        def target() -> ModelTarget:
            parent = service.gateway.target(service.settings, service.model)
            client = parent.client if not headers else parent.client.with_headers(headers)
            return ModelTarget(model, client, parent.key)

        pipeline = ToolPipeline(
            policy=policy,
            emit=emit,
            extensions=extensions,
            contexts=ToolContexts(
                service.workdir,
                read_state=lambda: conversation.read_state,
                env=lambda: service.settings.env,
                clock=service.clock,
            ),
            asker=service.permission_asker,
        )
        executor = ToolExecutor(conversation=conversation, pipeline=pipeline)
        compaction = _NoCompaction(
            conversation=conversation,
            target=target,
            fast_model=lambda: service.settings.fast_model,
            plan_mode=lambda: policy.mode == "plan",
            emit=emit,
            notify=lambda kind, text: None,
            restored=lambda: None,
        )
        runner = TurnRunner(
            conversation=conversation,
            requests=_SubagentRequests(service.paths, service.clock(), definition.system_prompt),
            executor=executor,
            compaction=compaction,
            commands=CommandRegistry(),
            emit=emit,
            target=target,
            settings=lambda: service.settings,
            apply_settings=lambda: None,  # the child's mode is fixed for its run
            extensions=extensions,
            builtin_tools=lambda: tools,
            max_input_tokens=service.options.max_input_tokens,
        )
        if parse_command(prompt) is not None:
            prompt = SUBAGENT_PROMPT_PREFIX + prompt
        progress("started", definition.name)
        with running_subagent(definition.name, description):
            result = await runner.turn(prompt, asyncio.Event())
        if result.status == "aborted":
            progress("finished", "aborted")
            raise asyncio.CancelledError()
        if result.status == "error":
            progress("finished", result.error or "failed")
            raise SubagentFailed(result.error or "the subagent failed")
        progress("finished", result.text)
        return result.text
