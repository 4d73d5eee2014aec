"""One turn of the conversation: a command answered locally, or the request / tools loop.

The loop's only knowledge of features is the protocols of `agent.extensions`: context sources
feed each request, tool providers add tools per request, turn observers may block a prompt,
add context, or ask to go on after the turn (at most `MAX_CONTINUATIONS` times).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Literal

from wave_tui.agent import events as ev
from wave_tui.agent.commands import CommandOutput, CommandRegistry, PromptExpansion, parse_command
from wave_tui.agent.compaction_flow import CompactionFlow
from wave_tui.agent.conversation import Conversation
from wave_tui.agent.events import Emit
from wave_tui.agent.extensions import (
    ContextSource,
    Extensions,
    TurnContinuation,
    TurnEnd,
    TurnObserver,
)
from wave_tui.agent.model_gateway import ModelTarget
from wave_tui.agent.request import RequestBuilder
from wave_tui.agent.tool_executor import ToolExecutor
from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings, resolve_max_input_tokens
from wave_tui.llm.errors import ContextLengthExceeded, ModelError
from wave_tui.llm.replies import AssistantReply, StreamDelta
from wave_tui.llm.types import Message, Usage
from wave_tui.llm.usage import estimate_prompt_tokens
from wave_tui.tools.base import Tool, spec_of

MAX_ROUNDS_PER_TURN = 200
MAX_CONTINUATIONS = 3  # Stop observers asking to go on, per turn
STOP_FEEDBACK = "Stop hook feedback: "
REPLY_CUT = "reply cut at the output limit"  # req: PV12
OVERFLOW_NOTICE = "the prompt did not fit the model's context window: compacted, retrying"
SMALL_WINDOW = (
    "{model}'s context window is {window} tokens (Ollama num_ctx) and the first request "
    "(instructions, AGENTS.md, rules, MEMORY.md, tools) already takes about {used}: raise num_ctx "
    "(e.g. OLLAMA_CONTEXT_LENGTH=32768) or trim AGENTS.md / MEMORY.md"
)
StopReason = Literal["end_turn", "max_turns"]


@record(frozen=False)
class TurnResult:
    status: ev.TurnStatus
    text: str = ""
    error: str | None = None
    usage: Usage | None = None
    command: bool = False  # answered locally: not a conversation turn (no extraction counted)
    stop: StopReason = "end_turn"


class TurnRunner:
    def __init__(
        self,
        *,
        conversation: Conversation,
        requests: RequestBuilder,
        executor: ToolExecutor,
        compaction: CompactionFlow,
        commands: CommandRegistry,
        emit: Emit,
        target: Callable[[], ModelTarget],
        settings: Callable[[], EffectiveSettings],
        apply_settings: Callable[[], None],
        extensions: Extensions,
        builtin_tools: Callable[[], list[Tool]],
        max_input_tokens: int | None,
        max_requests: int | None = None,
    ) -> None:
        self.conversation = conversation
        self.requests = requests
        self.executor = executor
        self.compaction = compaction
        self.commands = commands
        self._emit = emit
        self._target = target
        self._settings = settings
        self._apply_settings = apply_settings
        self._extensions = extensions
        self._builtin_tools = builtin_tools
        self._max_input_tokens = max_input_tokens
        self._max_requests = max_requests
        self.model_requests = 0
        # A custom command's `allowed-tools` and `model` hold for its turn only (CS2).
        self.turn_rules: tuple[str, ...] = ()
        self.turn_model: str | None = None
        self._stop: StopReason = "end_turn"
        self.last_request: dict[str, Any] | None = None
        self.last_reply: Message | None = None
        self.last_usage: Usage | None = None
        self._probed: dict[str, int | None] = {}  # model -> the endpoint's window (Ollama)

    def probed_window(self, model: str | None) -> int | None:
        """The input window the endpoint stated for `model` (Ollama's num_ctx), if probed."""
        return self._probed.get(model) if model else None

    def input_limit(self, model: str) -> int:
        limit = resolve_max_input_tokens(self._settings(), model, self._max_input_tokens)
        probed = self._probed.get(model)
        return min(limit, probed) if probed else limit

    async def _probe_window(self, target: ModelTarget, body: dict[str, Any]) -> None:
        """Once per model and session (req: PV11): Ollama truncates silently at num_ctx."""
        if target.model in self._probed:
            return
        window = await target.client.probe_context_limit(target.model)
        self._probed[target.model] = window
        used = estimate_prompt_tokens(body) if window is not None else 0
        if window is not None and used > window:
            self._emit(
                ev.Notice(
                    "warning", SMALL_WINDOW.format(model=target.model, window=window, used=used)
                )
            )

    def forget(self) -> None:
        """Nothing of the old conversation may be extracted again (/clear)."""
        self.last_request = None
        self.last_reply = None

    # -- tools and context of the next request ------------------------------------------------
    def tools(self) -> dict[str, Tool]:
        """Built-in tools, then every ToolProvider's, asked afresh for each request."""
        merged = {t.name: t for t in self._builtin_tools()}
        for extension in self._extensions.tool_providers:
            for tool in extension.tools():
                merged.setdefault(tool.name, tool)
        return merged

    def sources(self) -> list[ContextSource]:
        return list(self._extensions.context_sources)

    def build_request(
        self, tools: dict[str, Tool] | None = None, model: str | None = None
    ) -> dict[str, Any]:
        """The next main request; `model` given, no endpoint is needed (`wave context`)."""
        model = model if model is not None else self._target().model
        return self.requests.build(
            model=model,
            settings=self._settings(),
            sources=self.sources(),
            messages=self.conversation.messages,
            tools=[spec_of(t) for t in (tools if tools is not None else self.tools()).values()],
        )

    # -- a turn --------------------------------------------------------------------------------
    async def turn(self, text: str, abort: asyncio.Event) -> TurnResult:
        return await self._guarded(self._turn(text, abort))

    async def go_on(self, reason: str, abort: asyncio.Event) -> TurnResult:
        """A Stop observer asked the agent to go on (HK8): its reason joins the conversation as
        an isMeta message and the rounds continue — the same turn, no new prompt."""
        return await self._guarded(self._go_on(reason, abort))

    async def _guarded(self, work: Coroutine[Any, Any, TurnResult]) -> TurnResult:
        try:
            return await work
        except asyncio.CancelledError:
            self._end_command_grants()
            self.conversation.close_orphan_tool_calls(live=True)
            self._emit(ev.TurnEnded("aborted"))
            return TurnResult("aborted")
        except ModelError as exc:
            return self._failed(str(exc))
        except Exception as exc:  # a bug or an unforeseen failure must end the turn, not hang it
            return self._failed(f"unexpected error: {type(exc).__name__}: {exc}")

    async def _go_on(self, reason: str, abort: asyncio.Event) -> TurnResult:
        self.conversation.add(Message.user(f"{STOP_FEEDBACK}{reason}", is_meta=True))
        return await self._finish(abort)

    def _failed(self, message: str) -> TurnResult:
        self.conversation.close_orphan_tool_calls(live=True)
        self._emit(ev.ErrorOccurred(message))
        self._emit(ev.TurnEnded("error"))
        return TurnResult("error", error=message)

    # req: UX15
    async def _turn(self, text: str, abort: asyncio.Event) -> TurnResult:
        self._apply_settings()
        if parse_command(text) is not None:
            result = await self.commands.dispatch(text)
            if isinstance(result, PromptExpansion):
                text = result.prompt
                self.turn_rules, self.turn_model = result.allowed_tools, result.model
                self._apply_settings()
            else:
                answer = result if result is not None else CommandOutput("")
                status: ev.TurnStatus = "error" if answer.is_error else "completed"
                if answer.text:
                    self._emit(ev.CommandAnswered(answer.text, answer.is_error))
                self._emit(ev.TurnEnded(status, answer.text))
                error = answer.text if answer.is_error else None
                return TurnResult(status, answer.text, error, command=True)
        self._target()  # fail fast before anything is written when nothing is configured
        context: list[str] = []
        for observer in self._observers():
            start = await observer.on_turn_start(text)
            if start.blocked is not None:
                reason = f"prompt blocked by a hook: {start.blocked}"
                self._emit(ev.Notice("blocked", reason))
                self._emit(ev.TurnEnded("error", ""))
                return TurnResult("error", "", reason, command=True)
            context.extend(start.context)
        user = Message.user(text)
        self.conversation.add(user)
        self._emit(ev.UserMessageAdded(user))
        for extra in context:
            self.conversation.add(Message.user(extra, is_meta=True))
        return await self._finish(abort)

    async def _finish(self, abort: asyncio.Event) -> TurnResult:
        self._stop = "end_turn"
        try:
            final = await self._rounds(abort)
        finally:
            self._end_command_grants()
        self._emit(ev.TurnEnded("completed", final))
        return TurnResult("completed", final, usage=self.last_usage, stop=self._stop)

    def _end_command_grants(self) -> None:
        if self.turn_rules or self.turn_model:
            self.turn_rules, self.turn_model = (), None
            self._apply_settings()

    async def _rounds(self, abort: asyncio.Event) -> str:
        reply: AssistantReply | None = None
        for _ in range(MAX_ROUNDS_PER_TURN):
            await self.compaction.compact_if_due()
            for source in self.sources():
                for message in source.before_request():
                    self.conversation.add(message)
            if self._max_requests is not None and self.model_requests >= self._max_requests:
                self._stop = "max_turns"  # req: HL6
                break
            tools = self.tools()
            reply = await self._request(tools)
            if not reply.tool_calls:
                break
            await self.executor.run_round(reply.tool_calls, tools, abort)
        return reply.content if reply else ""

    def _observers(self) -> list[TurnObserver]:
        return list(self._extensions.turn_observers)

    async def turn_ended(self, result: TurnResult) -> TurnContinuation | None:
        """Tell the turn observers; the first continuation asked for is returned."""
        asked: TurnContinuation | None = None
        for observer in self._observers():
            continuation = await observer.on_turn_end(TurnEnd(result.status, result.text))
            if asked is None and continuation is not None:
                asked = continuation
        return asked

    async def _request(self, tools: dict[str, Tool]) -> AssistantReply:
        target = self._target()
        body = self.build_request(tools)
        # The window probe runs beside the first request, so no turn waits a round trip for it.
        probing = (
            asyncio.get_running_loop().create_task(self._probe_window(target, body))
            if target.model not in self._probed
            else None
        )
        self.last_request = body
        assistant_id = Message(role="assistant").id
        self._emit(ev.AssistantStarted(assistant_id))

        def on_delta(delta: StreamDelta) -> None:
            if delta.kind == "text":
                self._emit(ev.TextDelta(assistant_id, delta.text))
            elif delta.kind == "reasoning":
                self._emit(ev.ReasoningDelta(assistant_id, delta.text))

        try:
            try:
                reply = await target.client.stream_chat(body, on_delta)
            except ContextLengthExceeded:  # req: PV11
                if not await self.compaction.compact(None, trigger="auto"):
                    raise
                self._emit(ev.Notice("warning", OVERFLOW_NOTICE))
                body = self.build_request(tools)
                self.last_request = body
                reply = await target.client.stream_chat(body, on_delta)
        finally:
            if probing is not None:
                await probing  # never raises: a failed probe is "not Ollama"
        self.model_requests += 1
        message = Message(
            id=assistant_id,
            role="assistant",
            content=reply.content,
            reasoning=reply.reasoning or None,
            tool_calls=reply.tool_calls,
            usage=reply.usage,
        )
        self.conversation.add(message)
        self.last_reply = message
        self._emit(ev.AssistantFinished(message))
        if reply.cut:  # req: UX12
            self._emit(ev.Notice("cut", REPLY_CUT))
        if reply.usage is not None:
            self.last_usage = reply.usage
            self._emit(ev.UsageUpdated(reply.usage, target.model))
            self.compaction.after_usage(reply.usage, self.input_limit(target.model))
        return reply
