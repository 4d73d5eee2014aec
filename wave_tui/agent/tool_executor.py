"""Running one round of tool calls: parse arguments, guards, the permission question, locks,
the tool itself, observers — then the results (and the observers' follow-ups) in the history.

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
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from wave_tui.agent import events as ev
from wave_tui.agent.conversation import READ_META, Conversation
from wave_tui.agent.events import AskingAgent, Emit
from wave_tui.agent.extensions import (
    Extensions,
    ToolCallInfo,
    ToolOutcome,
)
from wave_tui.agent.prompts import HEADLESS_REFUSAL, USER_REFUSAL, USER_REFUSAL_WITH_REASON
from wave_tui.config.records import record
from wave_tui.llm.types import Message, ToolCall
from wave_tui.permissions.policy import UNRESTRICTED, PermissionPolicy, RunProfile
from wave_tui.permissions.tool_table import AGENT, key_argument
from wave_tui.tools.base import Tool, ToolContext, ToolResult, ValidatesFirst, error_result

CONCURRENT_TOOLS = frozenset({AGENT})  # consecutive calls of these in one reply run at once
# Kept with a tool message (never sent): a restored chat shows what the live one showed.
SUMMARY_META = "summary"
DIFF_META = "diff"
Ask = Callable[[str, dict[str, Any], str], Awaitable[ev.PermissionReply]]


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


def stored_tool_result(message: Message) -> StoredToolResult:
    """The summary and diff the live run showed; a transcript from before they were kept gives
    an error's first line (as an error result's summary is), else no summary."""
    is_error = bool(message.meta.get("isError"))
    summary = message.meta.get(SUMMARY_META)
    if not isinstance(summary, str):
        lines = (message.content or "").strip().splitlines()
        summary = lines[0] if is_error and lines else ""
    diff = message.meta.get(DIFF_META)
    return StoredToolResult(summary, diff if isinstance(diff, str) else "", is_error)


class ToolExecutor:
    def __init__(
        self,
        *,
        conversation: Conversation,
        policy: PermissionPolicy,
        emit: Emit,
        extensions: Extensions,
        context: Callable[[asyncio.Event], ToolContext],
        asker: Callable[[], Ask | None],
    ) -> None:
        self.conversation = conversation
        self.policy = policy
        self._emit = emit
        self._extensions = extensions
        self._context = context
        self._asker = asker  # gives None when nobody can answer (headless): a refusal

    async def run_round(
        self, calls: list[ToolCall], tools: dict[str, Tool], abort: asyncio.Event
    ) -> None:
        follow_ups: list[Message] = []
        for batch in concurrent_batches(calls):
            outcomes = await asyncio.gather(*(self._run(call, tools, abort) for call in batch))
            for call, outcome in zip(batch, outcomes, strict=True):
                follow_ups.extend(self._record(call, outcome))
        for message in follow_ups:
            self.conversation.add(message)

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
        try:
            args = json.loads(call.arguments or "{}")
            if not isinstance(args, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            self._emit(ev.ToolStarted(call.id, call.name, {}, ""))
            info = ToolCallInfo(call.id, call.name, {})
            invalid = ToolResult(f"Invalid arguments for {call.name}: {exc}", is_error=True)
            return ToolOutcome(info, invalid)
        info = ToolCallInfo(call.id, call.name, args)
        self._emit(ev.ToolStarted(call.id, call.name, args, key_argument(call.name, args)))
        tool = tools.get(call.name)
        if tool is None:
            names = ", ".join(tools)
            unknown = ToolResult(f"Unknown tool {call.name!r}. Available: {names}.", is_error=True)
            return ToolOutcome(info, unknown)
        refusal = await self._guard(info)
        if refusal is None and isinstance(tool, ValidatesFirst):
            # A call the tool would refuse is answered before anyone is asked about it.
            would_refuse = await tool.refusal(args, self._run_context(abort, UNRESTRICTED))
            if would_refuse is not None:
                return ToolOutcome(info, error_result(would_refuse))
        profile = UNRESTRICTED
        if refusal is None:
            refusal, profile = await self._check_permission(call.name, args)
        if refusal is not None:
            return ToolOutcome(info, ToolResult(refusal, is_error=True, summary="refused"))
        extensions = self._extensions
        async with contextlib.AsyncExitStack() as locks:
            try:
                for extension in extensions.locks:
                    lock = extension.lock_for(info)
                    if lock is not None:
                        await locks.enter_async_context(lock)
                result = await tool.run(args, self._run_context(abort, profile))
            except (OSError, ValueError, RuntimeError, TypeError, LookupError) as exc:
                # TimeoutError (a lock held elsewhere too long) is an OSError: the model is told.
                result = ToolResult(
                    f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True
                )
        outcome = ToolOutcome(info, result)
        for observer in extensions.tool_observers:
            await observer.after_tool(outcome)
        return outcome

    def _run_context(self, abort: asyncio.Event, profile: RunProfile) -> ToolContext:
        """The tool context, narrowed to how the policy said this call must run (X5, X14)."""
        ctx = self._context(abort)
        return dataclasses.replace(
            ctx,
            env={**(ctx.env or {}), **profile.env},
            output_limit_bytes=profile.output_limit_bytes,
        )

    async def _guard(self, call: ToolCallInfo) -> str | None:
        for extension in self._extensions.guards:
            refusal = await extension.check(call)
            if refusal is not None:
                return refusal
        return None

    # req: PM4
    async def _check_permission(
        self, tool: str, args: dict[str, Any]
    ) -> tuple[str | None, RunProfile]:
        """(refusal or None, how the call must run)."""
        decision = self.policy.decide(tool, args)
        if decision.behavior == "allow":
            return None, decision.profile
        if decision.behavior == "deny":
            return f"Permission denied: {decision.reason}.", UNRESTRICTED
        ask = self._asker()
        if ask is None:
            return HEADLESS_REFUSAL.format(reason=decision.reason), UNRESTRICTED
        reply = await ask(tool, args, decision.reason)
        answer = reply if isinstance(reply, ev.PermissionAnswer) else ev.PermissionAnswer(reply)
        if answer.choice == "allow_session":
            self.policy.grant_for_session(tool, args, answer.grant)
        if answer.choice in ("allow_once", "allow_session"):
            return None, UNRESTRICTED
        return refusal_text(tool, answer.feedback), UNRESTRICTED


# req: CV15
def refusal_text(tool: str, feedback: str) -> str:
    """What the model is told of a denial: the user's own words with it when they gave any."""
    feedback = feedback.strip()
    if not feedback:
        return USER_REFUSAL.format(tool=tool)
    return USER_REFUSAL_WITH_REASON.format(tool=tool, feedback=feedback)


# -- the permission question's hooks and who asks ----------------------------------------


def with_permission_hooks(
    ask: Ask, extensions: Extensions, notify: Callable[[str, str], None]
) -> Ask:
    # req: HK2
    async def asking(tool: str, args: dict[str, Any], reason: str) -> ev.PermissionReply:
        call = ToolCallInfo("", tool, args)
        for extension in extensions.permission_hooks:
            denied = await extension.run_permission_request(call)
            if denied is not None:
                notify("blocked", f"PermissionRequest hook denied {tool}: {denied}")
                return "deny"
        return await ask(tool, args, reason)

    return asking


_RUNNING: ContextVar[AskingAgent | None] = ContextVar("wave_running_subagent", default=None)


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
