"""The extension points of the conversation loop: narrow, typed protocols.

Every feature that shapes a turn plugs in through exactly one (or a few) of these, never into the
loop's body: memory injection and freshness are context sources; the extraction fork and user
`Stop` hooks are turn observers; MCP servers, skills and task tools are tool providers; user
`PreToolUse` hooks and the memory-dir lock are tool guards. An object may implement several.

`Extensions` is the registry the loop reads: `add(extension, ToolGuard, ToolObserver)` files the
object under exactly the seams named (typed slots, filled once), and refuses a seam whose methods
the object lacks, or no seam at all — so a misspelt hook method fails at wiring time instead of
never being called, and a method that merely shares a seam's name files nothing. mypy checks the
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
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Protocol,
    TypeVar,
    get_args,
    get_type_hints,
    runtime_checkable,
)

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


class Extensions:
    """The loop's registry: each slot holds, in the order added, the extensions registered for
    one seam. The loop's parts read the slots; only `add` writes them."""

    # The slot table, written once: each slot and the seam (protocol) whose implementers it
    # holds, as its type says; `_SLOTS` below is read from these annotations.
    context_sources: list[ContextSource]
    tool_providers: list[ToolProvider]
    guards: list[ToolGuard]
    deciders: list[ToolDecider]
    locks: list[ToolLock]
    preparers: list[ToolPreparer]
    tool_observers: list[ToolObserver]
    turn_observers: list[TurnObserver]
    session_observers: list[SessionObserver]
    status_sources: list[StatusSource]
    compaction_hooks: list[CompactionHooks]
    permission_hooks: list[PermissionRequestHooks]
    skill_sources: list[InvokedSkills]
    running_work_sources: list[RunningWork]
    request_watchers: list[RequestWatcher]
    tool_watchers: list[ToolWatcher]
    event_observers: list[EventObserver]
    prompt_attachments: list[PromptAttachments]
    workdir_observers: list[WorkdirObserver]

    def __init__(self) -> None:
        self.all: list[Extension] = []
        for slot in _SLOTS.values():
            setattr(self, slot.attribute, [])

    # req: CB1
    def add(self, extension: Extension, *seams: type) -> None:
        """File `extension` under each seam named (protocols of this module), nothing else.

        Explicit, so an object is never filed for a seam just because it happens to have a
        method of that name; and checked, so a misspelt or missing hook method fails here, at
        wiring time, instead of never being called. Nothing is filed when a check fails."""
        name = type(extension).__name__
        if not seams:
            raise TypeError(f"{name}: name the seams it serves, e.g. add(obj, ToolGuard)")
        slots: list[str] = []
        for seam in dict.fromkeys(seams):
            slot = _SLOTS.get(seam)
            if slot is None:
                raise TypeError(
                    f"{getattr(seam, '__name__', seam)!s} is not a seam of agent.extensions"
                )
            # What `isinstance` on a runtime protocol checks (a member set to None does not
            # count), without its per-call walk of the protocol's MRO.
            missing = [m for m in slot.members if getattr(extension, m, None) is None]
            if missing:
                raise TypeError(
                    f"{name} does not implement {seam.__name__}: no {', '.join(missing)}"
                )
            slots.append(slot.attribute)
        for attribute in slots:
            getattr(self, attribute).append(extension)
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


@record
class _Slot:
    attribute: str
    members: tuple[str, ...]  # the methods an extension needs to be filed here


def _slot_table() -> dict[type, _Slot]:
    """Each seam with its slot, from the annotations of `Extensions` (the one table)."""
    hints = get_type_hints(Extensions)
    return {
        seam: _Slot(attribute, _protocol_members(seam))
        for attribute, hint in hints.items()
        for seam in get_args(hint)
    }


_SLOTS = _slot_table()
