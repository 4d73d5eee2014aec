"""The agent service: one conversation, its loop, transcript, permissions and read state.

UI-free: the TUI and `wave -p` drive it through its async methods and listen to its events.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from wave_tui.agent import events as ev
from wave_tui.agent import extensions as ext
from wave_tui.agent.compaction import (
    CompactionBreaker,
    CompactionError,
    compact,
    recent_read_files,
    should_compact,
)
from wave_tui.agent.hooks import AgentHook
from wave_tui.agent.permissions import PermissionMode, PermissionPolicy, SafeZones
from wave_tui.agent.prompts import (
    ABORTED_TOOL_RESULT,
    HEADLESS_REFUSAL,
    NOT_CONFIGURED_HELP,
    STATIC_SYSTEM_PROMPT,
    USER_REFUSAL,
    environment_section,
    language_section,
)
from wave_tui.agent.request import SystemPrompt, build_body
from wave_tui.agent.sessions import (
    cleanup_old_sessions,
    full_thread,
    latest_descendant,
    session_chain,
    start_child_session,
    with_parent,
)
from wave_tui.agent.transcript import (
    Transcript,
    latest_session_id,
    new_session_id,
    transcript_for,
)
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import (
    EffectiveSettings,
    SettingsStore,
    resolve_max_input_tokens,
    resolve_max_output_tokens,
)
from wave_tui.llm.client import AssistantReply, ClientConfig, ModelClient, StreamDelta
from wave_tui.llm.errors import ModelError, ModelNotConfigured
from wave_tui.llm.types import Message, ToolCall, Usage
from wave_tui.tools.base import Clock, Tool, ToolContext, ToolResult, spec_of, system_clock
from wave_tui.tools.read_state import ReadEntry, ReadState, content_hash
from wave_tui.tools.registry import builtin_tools

Listener = Callable[[ev.AgentEvent], None]
Approver = Callable[[str, dict[str, Any], str], Awaitable[ev.PermissionChoice]]
MAX_ROUNDS_PER_TURN = 200
MAX_TURN_CONTINUATIONS = 3  # hooks-bridge: a Stop hook may make the agent go on at most this often
READ_META = "read"  # tool-message meta: [{path, sha256, mtimeNs}] of files seen in full
COMPACT_COMMAND = "/compact"
CLEAR_COMMAND = "/clear"


class AgentDestroyed(RuntimeError):
    def __init__(self) -> None:
        super().__init__("Agent destroyed")


@dataclass
class AgentOptions:
    workdir: Path
    model: str | None = None
    permission_mode: PermissionMode | None = None
    continue_last: bool = False
    resume: str | None = None
    headless: bool = False
    environ: Mapping[str, str] | None = None
    clock: Clock = system_clock
    max_input_tokens: int | None = None
    # Headless scripting options (HL4-HL6).
    allowed_tools: tuple[str, ...] = ()  # permission rules added to permissions.allow
    disallowed_tools: tuple[str, ...] = ()  # permission rules added to permissions.deny
    append_system_prompt: str | None = None  # appended to the dynamic system block
    max_turns: int | None = None  # at most this many main-agent model requests per run


@dataclass
class TurnResult:
    status: ev.TurnStatus
    text: str = ""
    error: str | None = None
    usage: Usage | None = None
    command: bool = False  # /compact, /clear: not a conversation turn (no extraction counted)
    stop: Literal["end_turn", "max_turns", "blocked"] = "end_turn"


@dataclass
class _ModelTarget:
    model: str
    client: ModelClient
    key: tuple[Any, ...]


@dataclass
class _TurnState:
    pending_calls: list[ToolCall] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)


class AgentService:
    def __init__(
        self,
        options: AgentOptions,
        *,
        paths: WavePaths | None = None,
        store: SettingsStore | None = None,
        tools: list[Tool] | None = None,
        approver: Approver | None = None,
    ) -> None:
        self.options = options
        self.paths = paths or WavePaths.for_workdir(options.workdir)
        self.store = store or SettingsStore(self.paths, options.environ)
        self.clock = options.clock
        self.tools: list[Tool] = tools if tools is not None else builtin_tools()
        self._tools_by_name = {t.name: t for t in self.tools}
        self.read_state = ReadState()
        self.safe_zones = SafeZones()
        self.policy = PermissionPolicy(self.paths.project_root, safe_zones=self.safe_zones)
        self.hooks: list[AgentHook] = []
        self.extensions: list[object] = []  # hooks-bridge: protocol extensions (extensions.py)
        self.model_requests = 0  # main-agent model requests of this service (num_turns, HL6)
        self._turn_rules: tuple[str, ...] = ()  # allowed-tools of a custom command, this turn only
        self._turn_model: str | None = None
        self.messages: list[Message] = []
        self.session_id = new_session_id()
        self.transcript: Transcript = transcript_for(self.paths, self.session_id)
        self.queue: list[str] = []
        self.last_request: dict[str, Any] | None = None
        self.last_reply: Message | None = None
        self.last_usage: Usage | None = None
        self.settings: EffectiveSettings = self.store.current()
        self._approver = approver
        self._listeners: list[Listener] = []
        self._target: _ModelTarget | None = None
        self._abort = asyncio.Event()
        self._turn_task: asyncio.Task[TurnResult] | None = None
        self._drain_task: asyncio.Task[None] | None = None
        self._destroyed = False
        self._system_key: tuple[Any, ...] | None = None
        self._system: SystemPrompt | None = None
        self._session_started = self.clock()
        self._started = False
        self.breaker = CompactionBreaker()
        self._compact_due = False
        self.compacting = False

    # -- lifecycle -----------------------------------------------------------------------------
    def add_hook(self, hook: AgentHook) -> None:
        self.hooks.append(hook)

    # hooks-bridge: until the loop is split, the protocol extensions are called from here.
    def add_extension(self, extension: object) -> None:
        self.extensions.append(extension)

    def _ext(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.extensions if isinstance(e, kind)]

    def all_tools(self) -> list[Tool]:
        """Built-in tools plus every ToolProvider's, asked per request."""
        extra = [t for p in self._ext(ext.ToolProvider) for t in p.tools()]
        return [*self.tools, *extra]

    def start(self) -> None:
        """Restore the session (--continue / --resume) and apply the settings in force."""
        if self._started:
            return
        self._started = True
        session = self.options.resume
        if session is None and self.options.continue_last:
            session = latest_session_id(self.paths)
        if session is not None:
            transcript = transcript_for(self.paths, session)
            if not transcript.path.exists():
                raise FileNotFoundError(f"no session {session!r} for this project")
            # A compacted session lives on in its newest descendant.
            session = latest_descendant(self.paths, session)
            transcript = transcript_for(self.paths, session)
            self.session_id = session
            self.transcript = transcript
            self.messages = transcript.load(warn=lambda w: self._emit(ev.Notice("warning", w)))
            self._close_orphan_tool_calls(live=False)
            self._restore_read_state(self.messages)
            for hook in self.hooks:
                hook.on_messages_restored(self.messages)
        self._apply_settings(self.store.current())
        self._start_cleanup()

    def _start_cleanup(self) -> None:
        """Delete transcripts older than cleanupPeriodDays in the background (never memory/)."""
        import threading
        import time

        period = self.settings.cleanup_period_days
        if period <= 0:
            return
        keep = frozenset(
            transcript_for(self.paths, sid).path
            for sid in session_chain(self.paths, self.session_id)
        )
        threading.Thread(
            target=cleanup_old_sessions,
            args=(self.paths, period, time.time(), keep),
            name="wave-session-cleanup",
            daemon=True,
        ).start()

    def full_thread(self) -> list[Message]:
        """Every message of this conversation across compactions, oldest first."""
        return full_thread(self.paths, self.session_id)

    async def destroy(self) -> None:
        """Abort the turn, await background work (e.g. an extraction fork), release resources."""
        if self._destroyed:
            return
        self._destroyed = True
        self.abort()
        for task in (self._turn_task, self._drain_task):
            if task is not None:
                with contextlib.suppress(BaseException):
                    await task
        for hook in self.hooks:
            await hook.aclose()
        for observer in self._ext(ext.SessionObserver):
            with contextlib.suppress(Exception):
                await observer.aclose()
        for tool in self.tools:
            stop = getattr(tool, "stop_background", None)  # Bash: commands run in background
            if callable(stop):
                stop()
        if self._target is not None:
            await self._target.client.aclose()

    # -- events --------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def notify(self, kind: str, text: str) -> None:
        """A compact line for the user (hooks report through here)."""
        self._emit(ev.Notice(kind, text))

    def _emit(self, event: ev.AgentEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    # -- settings ------------------------------------------------------------------------------
    def _apply_settings(self, settings: EffectiveSettings) -> None:
        self.settings = settings
        mode = self.options.permission_mode or settings.permissions.default_mode or "default"
        self.policy.mode = mode
        self.policy.set_rules(
            [*settings.permissions.allow, *self.options.allowed_tools, *self._turn_rules],
            [*settings.permissions.deny, *self.options.disallowed_tools],
        )
        for problem in self.store.new_problems():
            self._emit(ev.Notice("settings", problem))
        for hook in self.hooks:
            hook.on_settings(settings)

    def status(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for hook in self.hooks:
            merged.update(hook.status())
        return merged

    @property
    def background_busy(self) -> bool:
        """Background work that exit must wait for (a memory extraction in flight, C4)."""
        return bool(self.status().get("extraction_running"))

    @property
    def turns_until_next(self) -> int | None:
        """Completed turns until the next memory extraction (None: auto memory off)."""
        return self.status().get("turns_until_extraction")

    @property
    def model(self) -> str | None:
        return self._turn_model or self.options.model or self.settings.model

    def system_prompt(self) -> SystemPrompt:
        """Static block + dynamic block; rebuilt only when something it depends on changed."""
        sections_by_hook = [hook.system_sections(self.settings) for hook in self.hooks]
        sections_by_hook += [
            src.system_sections(self.settings) for src in self._ext(ext.ContextSource)
        ]
        if self.options.append_system_prompt:  # req: HL5
            sections_by_hook.append([self.options.append_system_prompt])
        key = (self.settings.language, tuple(tuple(s) for s in sections_by_hook))
        if self._system is None or key != self._system_key:
            parts = [
                environment_section(
                    self.paths.project_root, self.paths.repo_top is not None, self._session_started
                )
            ]
            language = language_section(self.settings.language)
            if language:
                parts.append(language)
            for sections in sections_by_hook:
                parts.extend(sections)
            self._system = SystemPrompt(STATIC_SYSTEM_PROMPT, "\n\n".join(parts))
            self._system_key = key
        return self._system

    def _model_target(self) -> _ModelTarget:
        settings = self.settings
        model = self.model
        if not model or not settings.base_url:
            raise ModelNotConfigured(NOT_CONFIGURED_HELP)
        key = (
            model,
            settings.base_url,
            settings.api_key,
            tuple(sorted(settings.custom_headers.items())),
        )
        if self._target is None or self._target.key != key:
            old = self._target
            config = ClientConfig(
                base_url=settings.base_url,
                api_key=settings.api_key,
                headers=dict(settings.custom_headers),
            )
            self._target = _ModelTarget(model, ModelClient(config), key)
            if old is not None:
                asyncio.get_running_loop().create_task(old.client.aclose())
        return self._target

    def client(self) -> ModelClient:
        """The model client for the current settings (shared with the extraction fork)."""
        return self._model_target().client

    def build_request(self) -> dict[str, Any]:
        target_model = self.model or ""
        reminder_parts = [text for hook in self.hooks if (text := hook.prepend_reminder())]
        reminder_parts += [
            t for src in self._ext(ext.ContextSource) if (t := src.prepend_reminder())
        ]
        config = self.settings.model_config_for(target_model)
        return build_body(
            model=target_model,
            system=self.system_prompt(),
            reminder="\n\n".join(reminder_parts) if reminder_parts else None,
            messages=self.messages,
            tools=[spec_of(t) for t in self.all_tools()],
            caching=config.capabilities.prompt_caching,
            options=config.options,
            max_tokens=resolve_max_output_tokens(self.settings, target_model, None)
            if self.settings.max_output_tokens is not None
            else None,
        )

    # -- messages ------------------------------------------------------------------------------
    def _add(self, message: Message) -> None:
        self.messages.append(message)
        self.transcript.append(message)
        if message.is_meta:
            self._emit(ev.MetaMessageAdded(message))

    def _close_orphan_tool_calls(self, *, live: bool) -> None:
        """Give every tool call without a result an "interrupted" result, so history stays valid."""
        answered = {m.tool_call_id for m in self.messages if m.role == "tool"}
        for index, message in enumerate(list(self.messages)):
            if message.role != "assistant":
                continue
            for call in message.tool_calls:
                if call.id in answered:
                    continue
                result = Message(
                    role="tool",
                    content=ABORTED_TOOL_RESULT,
                    tool_call_id=call.id,
                    tool_name=call.name,
                )
                answered.add(call.id)
                if live:  # a turn in progress: the UI's tool block must not stay "running"
                    self._emit(
                        ev.ToolFinished(
                            call.id, call.name, "interrupted", ABORTED_TOOL_RESULT, True
                        )
                    )
                position = index + 1
                while position < len(self.messages) and self.messages[position].role == "tool":
                    position += 1
                self.messages.insert(position, result)
                self.transcript.append(result)

    # -- public API ----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    async def send(self, text: str) -> None:
        """Queue a user message; turns run one after another in the background."""
        if self._destroyed:
            raise AgentDestroyed()
        self.queue.append(text)
        self._emit(ev.QueueChanged(tuple(self.queue)))
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        while self.queue and not self._destroyed:
            text = self.queue.pop(0)
            self._emit(ev.QueueChanged(tuple(self.queue)))
            await self.run_turn(text)

    async def wait_idle(self) -> None:
        while self._drain_task is not None and not self._drain_task.done():
            await asyncio.shield(self._drain_task)

    def abort(self) -> None:
        """Stop the running turn: the stream is cancelled and running tools are killed."""
        self._abort.set()
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()

    async def run_turn(
        self, text: str, allowed_tools: tuple[str, ...] = (), model: str | None = None
    ) -> TurnResult:
        """One turn; `allowed_tools` / `model` come from a custom command and hold for it only."""
        if self._destroyed:
            raise AgentDestroyed()
        self.start()
        self._abort = asyncio.Event()
        self._turn_rules, self._turn_model = allowed_tools, model
        try:
            return await self._run_turn(text)
        finally:
            self._turn_rules, self._turn_model = (), None

    async def _run_turn(self, text: str) -> TurnResult:
        self._turn_task = asyncio.get_running_loop().create_task(self._turn(text))
        self._emit(ev.BusyChanged(True))
        try:
            result = await asyncio.shield(self._turn_task)
        except asyncio.CancelledError:
            if not self._turn_task.done():
                self._turn_task.cancel()
            with contextlib.suppress(BaseException):
                await self._turn_task
            result = TurnResult("aborted")
        finally:
            self._emit(ev.BusyChanged(False))
        if not result.command:
            for hook in self.hooks:
                await hook.on_turn_end(result.status)
        return result

    async def _turn(self, text: str) -> TurnResult:
        try:
            return await self._loop(text)
        except asyncio.CancelledError:
            self._close_orphan_tool_calls(live=True)
            self._emit(ev.TurnEnded("aborted"))
            return TurnResult("aborted")
        except ModelError as exc:
            return self._failed(str(exc))
        except Exception as exc:  # a bug or an unforeseen failure must end the turn, not hang it
            return self._failed(f"unexpected error: {type(exc).__name__}: {exc}")

    def _failed(self, message: str) -> TurnResult:
        self._close_orphan_tool_calls(live=True)
        self._emit(ev.ErrorOccurred(message))
        self._emit(ev.TurnEnded("error"))
        return TurnResult("error", error=message)

    async def _loop(self, text: str) -> TurnResult:
        self._apply_settings(self.store.current())
        self._model_target()  # fail fast before anything is written when nothing is configured
        if text.strip().split(maxsplit=1)[:1] == [COMPACT_COMMAND]:
            instructions = text.strip()[len(COMPACT_COMMAND) :].strip() or None
            ok = await self.compact(instructions)
            summary = "Conversation compacted." if ok else "Compaction failed."
            self._emit(ev.TurnEnded("completed" if ok else "error", summary))
            status: ev.TurnStatus = "completed" if ok else "error"
            return TurnResult(status, summary, None if ok else summary, command=True)
        if text.strip() == CLEAR_COMMAND:
            self.clear()
            self._emit(ev.TurnEnded("completed", "Started a new conversation."))
            return TurnResult("completed", "Started a new conversation.", command=True)
        context: list[str] = []
        for observer in self._ext(ext.TurnObserver):  # hooks-bridge: UserPromptSubmit
            start = await observer.on_turn_start(text)
            if start.blocked is not None:
                self.notify("warning", f"prompt blocked by a hook: {start.blocked}")
                self._emit(ev.TurnEnded("error", start.blocked))
                return TurnResult(
                    "error",
                    error=f"prompt blocked by a hook: {start.blocked}",
                    command=True,
                    stop="blocked",
                )
            context.extend(start.context)
        user = Message.user(text)
        self._add(user)
        self._emit(ev.UserMessageAdded(user))
        for extra in context:  # req: HK6
            self._add(Message.user(extra, is_meta=True, userHook="context"))
        reply: AssistantReply | None = None
        continuations = 0
        stop: Literal["end_turn", "max_turns", "blocked"] = "end_turn"
        for _ in range(MAX_ROUNDS_PER_TURN):
            if self._compact_due:
                await self._auto_compact()
            for hook in self.hooks:
                for message in hook.before_request():
                    self._add(message)
            for src in self._ext(ext.ContextSource):
                for message in src.before_request():
                    self._add(message)
            if self.options.max_turns is not None and self.model_requests >= self.options.max_turns:
                stop = "max_turns"  # req: HL6
                break
            reply = await self._request()
            self.model_requests += 1
            if reply.tool_calls:
                await self._run_tools(reply.tool_calls)
                continue
            continuation = await self._turn_continuation(reply.content)
            if continuation is None or continuations >= MAX_TURN_CONTINUATIONS:
                break
            continuations += 1  # req: HK8
            self._add(Message.user(continuation, is_meta=True, userHook="Stop"))
        final = reply.content if reply else ""
        self._emit(ev.TurnEnded("completed", final))
        return TurnResult("completed", final, usage=self.last_usage, stop=stop)

    async def _turn_continuation(self, text: str) -> str | None:
        """hooks-bridge: a TurnObserver (a Stop hook) asking the agent to go on."""
        for observer in self._ext(ext.TurnObserver):
            cont = await observer.on_turn_end(ext.TurnEnd("completed", text))
            if cont is not None:
                return f"Stop hook feedback: {cont.reason}"
        return None

    async def _request(self) -> AssistantReply:
        target = self._model_target()
        body = self.build_request()
        self.last_request = body
        assistant_id = Message(role="assistant").id
        self._emit(ev.AssistantStarted(assistant_id))

        def on_delta(delta: StreamDelta) -> None:
            if delta.kind == "text":
                self._emit(ev.TextDelta(assistant_id, delta.text))
            elif delta.kind == "reasoning":
                self._emit(ev.ReasoningDelta(assistant_id, delta.text))

        reply = await target.client.stream_chat(body, on_delta)
        message = Message(
            id=assistant_id,
            role="assistant",
            content=reply.content,
            reasoning=reply.reasoning or None,
            tool_calls=reply.tool_calls,
            usage=reply.usage,
        )
        self._add(message)
        self.last_reply = message
        self._emit(ev.AssistantFinished(message))
        if reply.usage is not None:
            self.last_usage = reply.usage
            self._emit(ev.UsageUpdated(reply.usage, target.model))
            limit = resolve_max_input_tokens(
                self.settings, target.model, self.options.max_input_tokens
            )
            self._compact_due = should_compact(reply.usage, limit)
        return reply

    def clear(self) -> None:
        """Start a new, empty session (the old transcript stays on disk)."""
        self.session_id = new_session_id()
        self.transcript = transcript_for(self.paths, self.session_id)
        self.messages = []
        self.last_request = None  # nothing of the old conversation may be extracted again
        self.last_reply = None
        self.read_state.clear()
        self.breaker = CompactionBreaker()
        self._compact_due = False
        for hook in self.hooks:
            hook.on_messages_restored(self.messages)
        for observer in self._ext(ext.SessionObserver):
            observer.on_messages_restored(self.messages)
        self.notify("session", f"new conversation: session {self.session_id}")

    # -- compaction ----------------------------------------------------------------------------
    async def _auto_compact(self) -> None:
        self._compact_due = False
        if self.breaker.open:
            warning = self.breaker.take_warning()
            if warning:
                self.notify("warning", warning)
            return
        await self.compact(None)

    async def compact(self, instructions: str | None = None) -> bool:
        """Summarise all but the last rounds into a new, linked session. Never raises for a
        failed summary: the conversation goes on uncompacted (and the breaker counts)."""
        target = self._model_target()
        model = self.settings.fast_model or target.model
        self.compacting = True
        self._emit(ev.BackgroundChanged("compaction", True, f"compacting with {model}"))
        try:
            result = await compact(
                target.client,
                model,
                self.messages,
                instructions,
                recent_read_files(self.read_state),
                self.paths.project_root,
                plan_mode=self.policy.mode == "plan",
                background=[],
            )
        except CompactionError as exc:
            self.breaker.record_failure()
            self.notify("warning", f"compaction failed: {exc}")
            return False
        finally:
            self.compacting = False
            self._emit(ev.BackgroundChanged("compaction", False))
        self.breaker.record_success()
        if result.usage is not None:
            self._emit(ev.UsageUpdated(result.usage, model, source="compact"))
        parent = self.session_id
        self.transcript = start_child_session(self.paths, parent, result.new_messages)
        self.session_id = self.transcript.session_id
        self.messages = [with_parent(result.new_messages[0], parent), *result.new_messages[1:]]
        self._reseed_read_state()
        self._system = None  # AGENTS.md / MEMORY.md are read again
        for hook in self.hooks:
            hook.on_messages_restored(self.messages)
        for observer in self._ext(ext.SessionObserver):
            observer.on_messages_restored(self.messages)
        self.notify(
            "compaction",
            f"compacted {result.summarised_count} messages into a summary; session {self.session_id}",
        )
        return True

    def _reseed_read_state(self) -> None:
        """After compaction the model saw only the restored excerpts: start the read state anew
        from them, marked as not shown in full (a re-Read returns the file, not "unchanged")."""
        restored = recent_read_files(self.read_state)
        self.read_state.clear()
        for path, content in restored:
            try:
                mtime = path.stat().st_mtime_ns
            except OSError:
                continue
            self.read_state.record(
                ReadEntry(path, content, content_hash(content), mtime, origin="notice")
            )

    async def _run_tools(self, calls: list[ToolCall]) -> None:
        follow_ups: list[Message] = []
        for call in calls:
            args, result = await self._run_tool(call)
            meta: dict[str, Any] = {"isError": True} if result.is_error else {}
            seen = self._read_signatures([*result.read_paths, *result.written_paths])
            if seen:
                meta[READ_META] = seen
            self._add(
                Message(
                    role="tool",
                    content=result.content,
                    tool_call_id=call.id,
                    tool_name=call.name,
                    meta=meta,
                )
            )
            self._emit(
                ev.ToolFinished(call.id, call.name, result.summary, result.content, result.is_error)
            )
            if not result.is_error:
                for hook in self.hooks:
                    follow_ups.extend(hook.after_tools(call.name, args, result))
            outcome = ext.ToolOutcome(ext.ToolCallInfo(call.id, call.name, args), result)
            for observer in self._ext(ext.ToolObserver):  # hooks-bridge: PostToolUse
                await observer.after_tool(outcome)
            follow_ups.extend(outcome.follow_ups)
        for message in follow_ups:
            self._add(message)

    def _read_signatures(self, paths: list[Path]) -> list[dict[str, Any]]:
        """What the model has seen in full, kept in the transcript so a resumed session can
        still tell it which of those files changed since (N1, N7 across processes)."""
        out = []
        for path in paths:
            entry = self.read_state.get(path)
            if entry is not None and entry.is_full:
                out.append({"path": str(path), "sha256": entry.sha256, "mtimeNs": entry.mtime_ns})
        return out

    def _restore_read_state(self, messages: list[Message]) -> None:
        for message in messages:
            for seen in message.meta.get(READ_META, []) if message.role == "tool" else []:
                try:
                    entry = ReadEntry(
                        Path(seen["path"]),
                        None,
                        seen["sha256"],
                        int(seen["mtimeNs"]),
                        origin="notice",
                    )
                except (KeyError, TypeError, ValueError):
                    continue
                self.read_state.record(entry)

    async def _run_tool(self, call: ToolCall) -> tuple[dict[str, Any], ToolResult]:
        try:
            args = json.loads(call.arguments or "{}")
            if not isinstance(args, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            self._emit(ev.ToolStarted(call.id, call.name, {}, ""))
            return {}, ToolResult(f"Invalid arguments for {call.name}: {exc}", is_error=True)
        self._emit(ev.ToolStarted(call.id, call.name, args, _key_arg(args)))
        by_name = {t.name: t for t in self.all_tools()}
        tool = by_name.get(call.name)
        if tool is None:
            names = ", ".join(by_name)
            return args, ToolResult(
                f"Unknown tool {call.name!r}. Available: {names}.", is_error=True
            )
        refusal = next(
            (r for hook in self.hooks if (r := hook.before_tool(call.name, args)) is not None),
            None,
        )
        for guard in self._ext(ext.ToolGuard):  # hooks-bridge: PreToolUse
            if refusal is None:
                refusal = await guard.check(ext.ToolCallInfo(call.id, call.name, args))
        refusal = refusal or await self._check_permission(tool, args)
        if refusal is not None:
            return args, ToolResult(refusal, is_error=True, summary="refused")
        ctx = ToolContext(
            workdir=self.paths.project_root,
            read_state=self.read_state,
            abort=self._abort,
            env=self.settings.env,
            clock=self.clock,
        )
        with contextlib.ExitStack() as locks:
            for hook in self.hooks:
                lock = hook.tool_lock(call.name, args)
                if lock is not None:
                    locks.enter_context(lock)
            try:
                result = await tool.run(args, ctx)
            except (OSError, ValueError, RuntimeError, TypeError, LookupError) as exc:
                result = ToolResult(
                    f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True
                )
        for hook in self.hooks:
            result = hook.transform_tool_result(call.name, args, result)
        return args, result

    async def _check_permission(self, provided: Tool, args: dict[str, Any]) -> str | None:
        tool = provided.name
        decision = self.policy.decide(tool, args)
        if decision.behavior == "allow":
            return None
        if decision.behavior == "ask" and provided.read_only:  # hooks-bridge: Skill & co.
            return None
        if decision.behavior == "deny":
            return f"Permission denied: {decision.reason}."
        if self.options.headless or (self._approver is None and not self._listeners):
            return HEADLESS_REFUSAL.format(reason=decision.reason)
        choice = await self._ask(tool, args, decision.reason)
        if choice == "allow_session":
            self.policy.grant_for_session(tool, args)
        if choice in ("allow_once", "allow_session"):
            return None
        return USER_REFUSAL.format(tool=tool)

    async def _ask(self, tool: str, args: dict[str, Any], reason: str) -> ev.PermissionChoice:
        if self._approver is not None:
            return await self._approver(tool, args, reason)
        future: asyncio.Future[ev.PermissionChoice] = asyncio.get_running_loop().create_future()
        self._emit(ev.PermissionRequested(tool, args, reason, future))
        return await future


def _key_arg(args: dict[str, Any]) -> str:
    for key in ("file_path", "command", "pattern", "path"):
        value = args.get(key)
        if isinstance(value, str):
            return value
    return ""
