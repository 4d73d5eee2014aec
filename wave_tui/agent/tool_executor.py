"""Running one round of tool calls: each call is parsed once into a `ToolCallInfo` (with its
tool-table row), then goes down one pipeline (`ToolPipeline.run_call`): guards, the tool's own
refusal, the policy's one answer (`PermissionPolicy.resolve`), locks, the tool itself, observers
— then the results (and the observers' follow-ups) in the history. The main agent, a subagent
and the extraction fork each run their calls through a `ToolExecutor` of their own: their
policy, their extensions, their tool contexts.

PermissionRequest hooks (HK2): `with_permission_hooks(ask, extensions, notify)` wraps the
function that asks the user: every extension with `run_permission_request` (the user hooks) runs first; a reason from one denies
the call without asking, and the user sees that line. `wave -p` asks nobody, so it runs none.

A subagent's tool calls ask through the same asker; the running subagent is a context variable,
set for the subagent's own task (`running_subagent`), so the question it raises names it
(`asking_agent`) without the asker's signature changing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol

from wave_tui.agent import events as ev
from wave_tui.agent.conversation import READ_META, Conversation
from wave_tui.agent.events import AskingAgent, Emit
from wave_tui.agent.extensions import (
    Extensions,
    ToolCallInfo,
    ToolOutcome,
)
from wave_tui.agent.prompts import ABORTED_TOOL_RESULT
from wave_tui.config.records import record
from wave_tui.llm.types import Message, ToolCall
from wave_tui.permissions.call_facts import AnalysedUse
from wave_tui.permissions.hook_verdict import NO_VERDICT, HookVerdict, merge_verdicts
from wave_tui.permissions.policy import Ask, PermissionAnswer, Resolution, with_shown_rules
from wave_tui.permissions.tool_table import AGENT, ToolUse
from wave_tui.tools.base import (
    RUNNING_CALL,
    Tool,
    ToolContexts,
    ToolResult,
    ValidatesFirst,
    error_result,
)

CONCURRENT_TOOLS = frozenset({AGENT})  # consecutive calls of these in one reply run at once
# Kept with a tool message (never sent): a restored chat shows what the live one showed.
SUMMARY_META = "summary"
INTERRUPTED_SUMMARY = "interrupted"  # what a call closed by an interruption shows
DIFF_META = "diff"
__all__ = [
    "Ask",
    "ToolExecutor",
    "ToolPipeline",
    "asking_agent",
    "calling_site",
    "running_subagent",
    "with_permission_hooks",
]


class Resolver(Protocol):
    """Who answers whether a call may run: the permission policy (main agent, subagents) or
    the extraction fork's gate."""

    async def resolve(
        self, call: ToolCallInfo, ask: Ask | None, hook: HookVerdict = NO_VERDICT
    ) -> Resolution: ...


def concurrent_batches(calls: Sequence[ToolCall]) -> list[list[ToolCall]]:
    """The round in order: each run of consecutive Agent calls together, every other call
    alone (their results still join the history in the order of the calls)."""
    # req: AG5
    batches: list[list[ToolCall]] = []
    for call in calls:
        if batches and call.name in CONCURRENT_TOOLS and batches[-1][-1].name in CONCURRENT_TOOLS:
            batches[-1].append(call)
        else:
            batches.append([call])
    return batches


@record
class StoredToolResult:
    """A tool message of the transcript as the chat shows it after a restore."""

    summary: str
    diff: str
    is_error: bool


# req: FH10
def stored_tool_result(message: Message) -> StoredToolResult:
    """The summary and diff the live run showed; a transcript from before they were kept gives
    an error's first line (as an error result's summary is), else no summary."""
    if SUMMARY_META not in message.meta and message.content == ABORTED_TOOL_RESULT:
        # The call that an interruption closed: its result was never the tool's own.
        return StoredToolResult(INTERRUPTED_SUMMARY, "", True)
    is_error = bool(message.meta.get("isError"))
    summary = message.meta.get(SUMMARY_META)
    if not isinstance(summary, str):
        lines = (message.content or "").strip().splitlines()
        summary = lines[0] if is_error and lines else ""
    diff = message.meta.get(DIFF_META)
    return StoredToolResult(summary, diff if isinstance(diff, str) else "", is_error)


def parse_call(call: ToolCall, workdir: Path) -> ToolCallInfo | str:
    """The call with its arguments parsed, its table row and its facts (paths against
    `workdir`), or why its arguments are unusable."""
    try:
        args = json.loads(call.arguments or "{}")
        if not isinstance(args, dict):
            raise ValueError("arguments must be a JSON object")
    except ValueError as exc:
        return f"Invalid arguments for {call.name}: {exc}"
    return ToolCallInfo.of(call.id, call.name, args, workdir)


class ToolPipeline:
    """The road of one parsed call: guards, the tool's own refusal, the resolver's answer (the
    permission policy, or the extraction fork's gate), locks, the tool, observers."""

    def __init__(
        self,
        *,
        policy: Resolver,
        emit: Emit,
        extensions: Extensions,
        contexts: ToolContexts,
        asker: Callable[[], Ask | None],
    ) -> None:
        self.policy = policy
        self.emit = emit
        self._emit = emit
        self._extensions = extensions
        self._contexts = contexts
        self._asker = asker  # gives None when nobody can answer (headless): a refusal

    @property
    def workdir(self) -> Path:
        """Where the calls run: what their paths are resolved against when they are parsed."""
        return self._contexts.workdir

    def move_to(self, workdir: Path) -> None:
        """Calls parsed from now on resolve against `workdir` and run there (a worktree)."""
        self._contexts = dataclasses.replace(self._contexts, workdir=workdir)

    async def run_call(
        self, call: ToolCallInfo, tools: Mapping[str, Tool], abort: asyncio.Event
    ) -> ToolOutcome:
        """One parsed call, down the pipeline under the tool watchers' watch."""
        with self._extensions.watching_tool(call) as watch:
            outcome = await self._down(call, tools, abort)
            watch.finished(outcome)
        return outcome

    async def _down(
        self, call: ToolCallInfo, tools: Mapping[str, Tool], abort: asyncio.Event
    ) -> ToolOutcome:
        """Guards, the tool's own refusal, the policy's answer, locks, the tool, observers."""
        self._emit(ev.ToolStarted(call.call_id, call.name, call.args, call.key))
        tool = tools.get(call.name)
        if tool is None:
            names = ", ".join(tools)
            unknown = ToolResult(f"Unknown tool {call.name!r}. Available: {names}.", is_error=True)
            return ToolOutcome(call, unknown)
        hook = await self._decide(call)
        if hook.updated_input is not None:
            # Everything after (guards, rules, the question, the tool) sees the new input.
            call = ToolCallInfo.of(call.call_id, call.name, dict(hook.updated_input), self.workdir)
        if hook.behavior == "deny" or hook.stop is not None:
            result = ToolResult(hook_refusal(hook), is_error=True, summary="refused")
            return ToolOutcome(call, result, stop_turn=hook.stop)
        refusal = await self._guard(call)
        if refusal is None and isinstance(tool, ValidatesFirst):
            # A call the tool would refuse is answered before anyone is asked about it.
            would_refuse = await tool.refusal(call.args, self._contexts.build(abort))
            if would_refuse is not None:
                return ToolOutcome(call, error_result(would_refuse))
        if refusal is not None:
            return ToolOutcome(call, ToolResult(refusal, is_error=True, summary="refused"))
        answer = await self.policy.resolve(call, self._asker(), hook)
        if answer.refusal is not None:
            return ToolOutcome(call, ToolResult(answer.refusal, is_error=True, summary="refused"))
        extensions = self._extensions
        profile = answer.profile
        ctx = self._contexts.build(
            abort,
            profile.env,
            profile.output_limit_bytes,
            call.facts.target,
            profile.command_prefix,
        )
        async with contextlib.AsyncExitStack() as locks:
            try:
                for extension in extensions.locks:
                    lock = extension.lock_for(call)
                    if lock is not None:
                        await locks.enter_async_context(lock)
                for preparer in extensions.preparers:
                    await preparer.before_run(call)
                site = _SITE.set(CallSite(self, tools))
                running = RUNNING_CALL.set(call.call_id)
                try:
                    result = await tool.run(call.args, ctx)
                finally:
                    RUNNING_CALL.reset(running)
                    _SITE.reset(site)
            except (OSError, ValueError, RuntimeError, TypeError, LookupError) as exc:
                # TimeoutError (a lock held elsewhere too long) is an OSError: the model is told.
                result = ToolResult(
                    f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True
                )
        outcome = ToolOutcome(call, result)
        for observer in extensions.tool_observers:
            await observer.after_tool(outcome)
        return outcome

    # req: PH1
    async def _decide(self, call: ToolCallInfo) -> HookVerdict:
        if not self._extensions.deciders:
            return NO_VERDICT
        return merge_verdicts([await d.decide(call) for d in self._extensions.deciders])

    async def _guard(self, call: ToolCallInfo) -> str | None:
        for extension in self._extensions.guards:
            refusal = await extension.check(call)
            if refusal is not None:
                return refusal
        return None


def hook_refusal(hook: HookVerdict) -> str:
    """What the model is told of a call the PreToolUse hooks refused or stopped."""
    if hook.behavior == "deny":
        return f"PreToolUse hook refused the call: {hook.reason or 'no reason given'}"
    return f"PreToolUse hook stopped the turn: {hook.stop or 'no reason given'}"


class ToolExecutor:
    """One round of the model's tool calls through a pipeline, the results into the history."""

    def __init__(self, *, conversation: Conversation, pipeline: ToolPipeline) -> None:
        self.conversation = conversation
        self.pipeline = pipeline
        self._emit = pipeline.emit

    async def run_round(
        self, calls: list[ToolCall], tools: dict[str, Tool], abort: asyncio.Event
    ) -> str | None:
        """The round's calls; returns why the turn must stop after it (a hook's `continue:
        false`), None to go on."""
        follow_ups: list[Message] = []
        stop: str | None = None
        for batch in concurrent_batches(calls):
            outcomes = await asyncio.gather(*(self._run(call, tools, abort) for call in batch))
            for call, outcome in zip(batch, outcomes, strict=True):
                follow_ups.extend(self._record(call, outcome))
                stop = stop if stop is not None else outcome.stop_turn
        for message in follow_ups:
            self.conversation.add(message)
        return stop

    def _record(self, call: ToolCall, outcome: ToolOutcome) -> list[Message]:
        """The call's result into the history; its follow-ups are returned for after the round."""
        result = outcome.result
        meta: dict[str, Any] = {"isError": True} if result.is_error else {}
        meta[SUMMARY_META] = result.summary  # even "": an absent key is an older transcript
        if result.diff:
            meta[DIFF_META] = result.diff
        seen = self.conversation.read_signatures([*result.read_paths, *result.written_paths])
        if seen:
            meta[READ_META] = seen
        self.conversation.add(
            Message(
                role="tool",
                content=result.content,
                tool_call_id=call.id,
                tool_name=call.name,
                meta=meta,
                images=list(result.images) or None,
            )
        )
        self._emit(
            ev.ToolFinished(
                call.id, call.name, result.summary, result.content, result.is_error, result.diff
            )
        )
        return outcome.follow_ups

    async def _run(
        self, call: ToolCall, tools: dict[str, Tool], abort: asyncio.Event
    ) -> ToolOutcome:
        workdir = self.pipeline.workdir
        parsed = parse_call(call, workdir)
        if isinstance(parsed, str):
            self._emit(ev.ToolStarted(call.id, call.name, {}, ""))
            info = ToolCallInfo.of(call.id, call.name, {}, workdir)
            return ToolOutcome(info, ToolResult(parsed, is_error=True))
        return await self.pipeline.run_call(parsed, tools, abort)


# -- the permission question's hooks and who asks ----------------------------------------


def with_permission_hooks(
    ask: Ask, extensions: Extensions, notify: Callable[[str, str], None], workdir: Path
) -> Ask:
    """Who asks, for the policy: the PermissionRequest hooks first, then `ask`; an "always"
    reply comes back with the rules it grants (`with_shown_rules`)."""

    # req: HK2
    async def asking(tool: str, args: dict[str, Any], reason: str) -> ev.PermissionReply:
        call = ToolUse.of(tool, args)
        for extension in extensions.permission_hooks:
            denied = await extension.run_permission_request(call)
            if denied is not None:
                notify("blocked", f"PermissionRequest hook denied {tool}: {denied}")
                return "deny"
        reply = await ask(tool, args, reason)
        if isinstance(reply, PermissionAnswer) and reply.rules:
            return reply
        return with_shown_rules(reply, AnalysedUse.of(tool, args, workdir), workdir)

    return asking


_RUNNING: ContextVar[AskingAgent | None] = ContextVar("wave_running_subagent", default=None)


@record
class CallSite:
    """The pipeline running a tool and the tools of the agent that called it."""

    pipeline: ToolPipeline
    tools: Mapping[str, Tool]


_SITE: ContextVar[CallSite | None] = ContextVar("wave_call_site", default=None)


def calling_site() -> CallSite | None:
    """Where the tool running in this task was called (None outside a tool's run): a tool that
    makes calls of its own (Exec) makes them as its caller, under its caller's rules and tools."""
    return _SITE.get()


def asking_agent() -> AskingAgent | None:
    """The subagent whose task this is; None in the main agent's."""
    return _RUNNING.get()


@contextmanager
def running_subagent(agent_type: str, description: str) -> Iterator[None]:
    """Within this block (and the tasks it starts), questions come from this subagent."""
    token = _RUNNING.set(AskingAgent(agent_type, description))
    try:
        yield
    finally:
        _RUNNING.reset(token)
