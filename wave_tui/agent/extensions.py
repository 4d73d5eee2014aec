"""The extension points of the conversation loop: narrow, typed protocols.

Every feature that shapes a turn plugs in through exactly one (or a few) of these, never into the
loop's body: memory injection and freshness are context sources; the extraction fork and user
`Stop` hooks are turn observers; MCP servers, skills and task tools are tool providers; user
`PreToolUse` hooks and the memory-dir lock are tool guards. An object may implement several.

`Extensions` is the registry the loop reads: one `add(extension)` files the object under every
protocol it implements (typed slots, filled once), and refuses an object that implements none —
so a misspelt hook method fails at wiring time instead of never being called. mypy checks the
argument against the `Extension` union. The base classes give the no-op defaults of the
protocols with several methods, so a feature writes only the methods it needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    ExitStack,
    contextmanager,
)
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, runtime_checkable

from wave_tui.config.records import record
from wave_tui.llm.types import Message, Usage
from wave_tui.permissions.call_facts import CallFacts
from wave_tui.permissions.hook_verdict import HookVerdict
from wave_tui.permissions.tool_table import CallOnRow, ToolInfo, key_argument, tool_info
from wave_tui.tools.base import Tool, ToolResult

_T = TypeVar("_T")

if TYPE_CHECKING:
    from wave_tui.agent.events import AgentEvent, TurnStatus
    from wave_tui.config.settings import EffectiveSettings


@record
class ToolCallInfo:
    """One tool call as the policy and the extensions see it: arguments parsed, its tool-table
    row and key argument looked up once, and its facts (the command split, the path resolved
    against `workdir`) analysed once, where the call is parsed (`of`)."""

    call_id: str
    name: str
    args: dict[str, Any]
    row: ToolInfo
    key: str  # the argument that says what the call is about ("" when none)
    facts: CallFacts

    @classmethod
    def of(cls, call_id: str, name: str, args: dict[str, Any], workdir: Path) -> ToolCallInfo:
        row = tool_info(name)
        facts = CallFacts.of(name, args, row, workdir)
        return cls(call_id, name, args, row, key_argument(name, args), facts)


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
    # An observer (a hook's `continue: false`) ends the turn after this round: the reason shown.
    stop_turn: str | None = None


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
class ToolDecider(Protocol):
    """Has its say on a call before the guards and the policy (PreToolUse hooks): deny, allow
    (sparing the question, never a deny rule), ask, or the call's input replaced."""

    async def decide(self, call: ToolCallInfo) -> HookVerdict: ...


@runtime_checkable
class ToolLock(Protocol):
    """A lock held while a call runs (a memory file shared between agent processes).
    Must never block the event loop."""

    def lock_for(self, call: ToolCallInfo) -> AbstractAsyncContextManager[None] | None: ...


@runtime_checkable
class ToolPreparer(Protocol):
    """Runs right before a call's tool does, after its checks, answer and locks: the last
    moment the files it will change are as they were (a file checkpoint). An OSError it raises
    fails the call instead of letting it change what could not be kept."""

    async def before_run(self, call: ToolCallInfo) -> None: ...


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


class RequestWatch(Protocol):
    """One model request as a watcher follows it; leaving the watch with an exception is the
    request failing (a cancelled one included)."""

    def delta(self) -> None:
        """A piece of the reply arrived (the first one is the time to first token)."""
        ...

    def replied(self, usage: Usage | None, has_tool_call: bool) -> None: ...


@runtime_checkable
class RequestWatcher(Protocol):
    """Follows each model request of a loop (the main agent's and a subagent's) from its start
    to its reply: telemetry spans and timings. Never changes the request."""

    def watch_request(self, model: str) -> AbstractContextManager[RequestWatch]: ...


class ToolWatch(Protocol):
    """One tool call as a watcher follows it; it is told the outcome before the watch ends."""

    def finished(self, outcome: ToolOutcome) -> None: ...


@runtime_checkable
class ToolWatcher(Protocol):
    """Follows each tool call from its start (before guards and the policy) to its outcome.
    The watch is entered in the call's own task, so a context it sets (a span) is current for
    the work the call starts: a subagent's requests and calls nest under its Agent call."""

    def watch_tool(self, call: ToolCallInfo) -> AbstractContextManager[ToolWatch]: ...


@runtime_checkable
class EventObserver(Protocol):
    """Sees every event the agent emits, as it is emitted (telemetry). Must be quick and never
    raise; it may be called from a worker thread (memory writes made off the event loop)."""

    def on_event(self, event: AgentEvent) -> None: ...


CompactionTrigger = Literal["manual", "auto"]


@runtime_checkable
class CompactionHooks(Protocol):
    """Sees each compaction: what it returns before joins the summary instructions (PreCompact),
    and it gets the summary after (PostCompact)."""

    async def run_pre_compact(self, trigger: CompactionTrigger, custom: str | None) -> str: ...

    async def run_post_compact(self, trigger: CompactionTrigger, summary: str) -> None: ...


@runtime_checkable
class PermissionRequestHooks(Protocol):
    """Asked before the user is about a call that needs approval; a reason denies it."""

    async def run_permission_request(self, call: CallOnRow) -> str | None: ...


@runtime_checkable
class InvokedSkills(Protocol):
    """The skills invoked in `messages` (the whole thread), newest first: (name, text); a
    compaction restores them."""

    def invoked_skills(self, messages: Sequence[Message]) -> list[tuple[str, str]]: ...


@runtime_checkable
class RunningWork(Protocol):
    """Background work running now, one line each (command, id, where its output goes); a
    compaction names it."""

    def running_work(self) -> list[str]: ...


@runtime_checkable
class PromptAttachments(Protocol):
    """What the user's prompt carries besides its text (an `@img.png`'s image): the message as
    it is added to the conversation; an unusable attachment is said (a notice), never fatal."""

    async def attach(self, message: Message) -> Message: ...


@runtime_checkable
class WorkdirObserver(Protocol):
    """Follows the session's working directory when it moves (into a worktree and back): the
    tools' working directory itself is the main pipeline's (`AgentService.move_workdir`)."""

    def on_workdir_changed(self, old: Path, new: Path) -> None: ...


@record
class StatusContribution:
    """What an extension adds to the agent's status (typed, so the UI never reads a dict)."""

    turns_until_extraction: int | None = None
    extraction_running: bool = False
    # Why each conditional rule is loaded: rule id -> (trigger file, pattern).
    rule_activations: Mapping[str, tuple[str, str]] | None = None
    # Auto memory is on in the settings but off for this run: its folder cannot be used (M5).
    auto_memory_unusable: bool = False
    # The git worktree the session works in (its name), None in the main checkout.
    worktree: str | None = None


@runtime_checkable
class StatusSource(Protocol):
    """Contributes facts to `AgentStatus` (the memory countdown, a running extraction)."""

    def status(self) -> StatusContribution: ...


def merge_status(parts: Iterable[StatusContribution]) -> StatusContribution:
    """The first known value of each fact wins; the flags are set if any part says so."""
    turns: int | None = None
    running = unusable = False
    activations: Mapping[str, tuple[str, str]] | None = None
    worktree: str | None = None
    for part in parts:
        turns = part.turns_until_extraction if turns is None else turns
        running = running or part.extraction_running
        activations = part.rule_activations if activations is None else activations
        unusable = unusable or part.auto_memory_unusable
        worktree = part.worktree if worktree is None else worktree
    return StatusContribution(turns, running, activations, unusable, worktree)


Extension = (
    ContextSource
    | ToolProvider
    | ToolGuard
    | ToolDecider
    | ToolLock
    | ToolPreparer
    | ToolObserver
    | TurnObserver
    | SessionObserver
    | StatusSource
    | CompactionHooks
    | PermissionRequestHooks
    | InvokedSkills
    | RunningWork
    | RequestWatcher
    | ToolWatcher
    | EventObserver
    | PromptAttachments
    | WorkdirObserver
)


class _RequestWatches:
    """Every watcher's watch of one request, told together."""

    def __init__(self, watches: list[RequestWatch]) -> None:
        self._watches = watches

    def delta(self) -> None:
        for watch in self._watches:
            watch.delta()

    def replied(self, usage: Usage | None, has_tool_call: bool) -> None:
        for watch in self._watches:
            watch.replied(usage, has_tool_call)


class _ToolWatches:
    def __init__(self, watches: list[ToolWatch]) -> None:
        self._watches = watches

    def finished(self, outcome: ToolOutcome) -> None:
        for watch in self._watches:
            watch.finished(outcome)


class ContextSourceBase:
    """`ContextSource` with nothing to contribute: override what the feature adds."""

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        return []

    def prepend_reminder(self) -> str | None:
        return None

    def before_request(self) -> list[Message]:
        return []


class TurnObserverBase:
    """`TurnObserver` that lets every turn start and end as it would."""

    async def on_turn_start(self, prompt: str) -> TurnStart:
        return TurnStart()

    async def on_turn_end(self, end: TurnEnd) -> TurnContinuation | None:
        return None


class SessionObserverBase:
    """`SessionObserver` with nothing to follow or to wait for on close."""

    def on_settings(self, settings: EffectiveSettings) -> None:
        return None

    def on_messages_restored(self, messages: list[Message]) -> None:
        return None

    async def aclose(self) -> None:
        return None


def _protocol_members(protocol: type) -> tuple[str, ...]:
    """The members a runtime check of `protocol` looks for (all of them methods here)."""
    return tuple(
        name
        for name, value in vars(protocol).items()
        if not name.startswith("_") and callable(value)
    )


# Each slot of `Extensions`, with the protocol whose implementers it holds.
_SLOT_MEMBERS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (attribute, _protocol_members(protocol))
    for attribute, protocol in (
        ("context_sources", ContextSource),
        ("tool_providers", ToolProvider),
        ("guards", ToolGuard),
        ("deciders", ToolDecider),
        ("locks", ToolLock),
        ("preparers", ToolPreparer),
        ("tool_observers", ToolObserver),
        ("turn_observers", TurnObserver),
        ("session_observers", SessionObserver),
        ("status_sources", StatusSource),
        ("compaction_hooks", CompactionHooks),
        ("permission_hooks", PermissionRequestHooks),
        ("skill_sources", InvokedSkills),
        ("running_work_sources", RunningWork),
        ("request_watchers", RequestWatcher),
        ("tool_watchers", ToolWatcher),
        ("event_observers", EventObserver),
        ("prompt_attachments", PromptAttachments),
        ("workdir_observers", WorkdirObserver),
    )
)


class Extensions:
    """The loop's registry: each slot holds, in the order added, the extensions implementing
    one protocol. The loop's parts read the slots; only `add` writes them."""

    def __init__(self) -> None:
        self.all: list[Extension] = []
        self.context_sources: list[ContextSource] = []
        self.tool_providers: list[ToolProvider] = []
        self.guards: list[ToolGuard] = []
        self.deciders: list[ToolDecider] = []
        self.locks: list[ToolLock] = []
        self.preparers: list[ToolPreparer] = []
        self.tool_observers: list[ToolObserver] = []
        self.turn_observers: list[TurnObserver] = []
        self.session_observers: list[SessionObserver] = []
        self.status_sources: list[StatusSource] = []
        self.compaction_hooks: list[CompactionHooks] = []
        self.permission_hooks: list[PermissionRequestHooks] = []
        self.skill_sources: list[InvokedSkills] = []
        self.running_work_sources: list[RunningWork] = []
        self.request_watchers: list[RequestWatcher] = []
        self.tool_watchers: list[ToolWatcher] = []
        self.event_observers: list[EventObserver] = []
        self.prompt_attachments: list[PromptAttachments] = []
        self.workdir_observers: list[WorkdirObserver] = []

    def add(self, extension: Extension) -> None:
        filed = False
        for attribute, members in _SLOT_MEMBERS:
            # What `isinstance` on a runtime protocol checks, without its per-call walk of the
            # protocol's MRO (≈ 0.3 ms per extension, every session start).
            if all(getattr(extension, name, None) is not None for name in members):
                getattr(self, attribute).append(extension)
                filed = True
        if not filed:
            raise TypeError(
                f"{type(extension).__name__} implements no extension protocol of agent.extensions"
            )
        self.all.append(extension)

    @contextmanager
    def watching_request(self, model: str) -> Iterator[RequestWatch]:
        """One model request under every request watcher's watch (none: nothing to do)."""
        with ExitStack() as stack:
            yield _RequestWatches(
                [stack.enter_context(w.watch_request(model)) for w in self.request_watchers]
            )

    @contextmanager
    def watching_tool(self, call: ToolCallInfo) -> Iterator[ToolWatch]:
        """One tool call under every tool watcher's watch."""
        with ExitStack() as stack:
            yield _ToolWatches(
                [stack.enter_context(w.watch_tool(call)) for w in self.tool_watchers]
            )

    def of_type(self, kind: type[_T]) -> _T | None:
        """The first extension of a concrete class (features that find a sibling, e.g. the
        subagent runner finding the memory injection), or None."""
        return next((e for e in self.all if isinstance(e, kind)), None)
