"""The extension points of the conversation loop: narrow, typed protocols.

Every feature that shapes a turn plugs in through exactly one (or a few) of these, never into the
loop's body: memory injection and freshness are context sources; the extraction fork and user
`Stop` hooks are turn observers; MCP servers, skills and task tools are tool providers; user
`PreToolUse` hooks and the memory-dir lock are tool guards. An object may implement several.
The loop discovers which protocols an extension implements with `isinstance` (they are
`runtime_checkable`), so a new extension needs no change in the loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from wave_tui.config.records import record
from wave_tui.llm.types import Message
from wave_tui.tools.base import Tool, ToolResult

if TYPE_CHECKING:
    from wave_tui.agent.events import TurnStatus
    from wave_tui.config.settings import EffectiveSettings


@record
class ToolCallInfo:
    """One tool call as the extensions see it (arguments already parsed)."""

    call_id: str
    name: str
    args: dict[str, Any]


@record
class TurnStart:
    """What a turn observer may do with a prompt before it is sent."""

    blocked: str | None = None  # a reason shown to the user; the prompt is dropped
    context: tuple[str, ...] = ()  # texts added to the model's context as isMeta messages


@record
class TurnEnd:
    status: TurnStatus
    text: str = ""


@record
class TurnContinuation:
    """A `Stop` observer asking the agent to go on (bounded by the loop)."""

    reason: str


@record(frozen=False)
class ToolOutcome:
    """A finished tool call handed to observers; `follow_ups` are isMeta messages to append
    once all tool results of the round are in (rules, nested memory)."""

    call: ToolCallInfo
    result: ToolResult
    follow_ups: list[Message] = field(default_factory=list)


@runtime_checkable
class ContextSource(Protocol):
    """Contributes to each request: dynamic-system-block sections, the transient prepended
    reminder, and persisted isMeta messages appended before the request."""

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        """Sections of the dynamic system block; must be stable while nothing changed."""
        ...

    def prepend_reminder(self) -> str | None:
        """Transient text for the `<system-reminder>` at the start (never persisted)."""
        ...

    def before_request(self) -> list[Message]:
        """isMeta messages to append (and persist) before the next model request."""
        ...


@runtime_checkable
class ToolProvider(Protocol):
    """Offers tools beyond the built-in ones (MCP servers, Skill, task tools). Asked before
    every request, so a changed list takes effect from the next request."""

    def tools(self) -> Sequence[Tool]: ...


@runtime_checkable
class ToolGuard(Protocol):
    """Decides whether a call may run, before the permission policy asks the user."""

    async def check(self, call: ToolCallInfo) -> str | None:
        """A refusal sent back to the model, or None to go on."""
        ...


@runtime_checkable
class ToolLock(Protocol):
    """A lock held while a call runs (a memory file shared between agent processes).
    Must never block the event loop."""

    def lock_for(self, call: ToolCallInfo) -> AbstractAsyncContextManager[None] | None: ...


@runtime_checkable
class ToolObserver(Protocol):
    """Sees every finished call: may rewrite its result (staleness note) and add follow-ups."""

    async def after_tool(self, outcome: ToolOutcome) -> None: ...


@runtime_checkable
class TurnObserver(Protocol):
    """Sees turns start and end (user hooks, the extraction fork, notifications)."""

    async def on_turn_start(self, prompt: str) -> TurnStart: ...

    async def on_turn_end(self, end: TurnEnd) -> TurnContinuation | None: ...


@runtime_checkable
class SessionObserver(Protocol):
    """Sees the session's life: settings in force, messages restored (resume, compaction,
    /clear), and the end (await background work)."""

    def on_settings(self, settings: EffectiveSettings) -> None: ...

    def on_messages_restored(self, messages: list[Message]) -> None: ...

    async def aclose(self) -> None: ...


@record
class StatusContribution:
    """What an extension adds to the agent's status (typed, so the UI never reads a dict)."""

    turns_until_extraction: int | None = None
    extraction_running: bool = False
    # Why each conditional rule is loaded: rule id -> (trigger file, pattern).
    rule_activations: Mapping[str, tuple[str, str]] | None = None
    # Auto memory is on in the settings but off for this run: its folder cannot be used (M5).
    auto_memory_unusable: bool = False


@runtime_checkable
class StatusSource(Protocol):
    """Contributes facts to `AgentStatus` (the memory countdown, a running extraction)."""

    def status(self) -> StatusContribution: ...


def merge_status(parts: Iterable[StatusContribution]) -> StatusContribution:
    """The first known value of each fact wins; the flags are set if any part says so."""
    turns: int | None = None
    running = unusable = False
    activations: Mapping[str, tuple[str, str]] | None = None
    for part in parts:
        turns = part.turns_until_extraction if turns is None else turns
        running = running or part.extraction_running
        activations = part.rule_activations if activations is None else activations
        unusable = unusable or part.auto_memory_unusable
    return StatusContribution(turns, running, activations, unusable)


Extension = (
    ContextSource
    | ToolProvider
    | ToolGuard
    | ToolLock
    | ToolObserver
    | TurnObserver
    | SessionObserver
    | StatusSource
)
