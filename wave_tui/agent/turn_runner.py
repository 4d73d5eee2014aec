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
from wave_tui.agent.attachments import ATTACHED_BLOCK, prompt_message
from wave_tui.agent.commands import CommandOutput, CommandRegistry, PromptExpansion, parse_command
from wave_tui.agent.compaction_flow import OVERFLOW_NOTICE as OVERFLOW_NOTICE
from wave_tui.agent.compaction_flow import CompactionFlow
from wave_tui.agent.context_window import ContextWindows
from wave_tui.agent.conversation import Conversation
from wave_tui.agent.events import Emit
from wave_tui.agent.extensions import (
    ContextSource,
    Extensions,
    RequestWatch,
    TurnContinuation,
    TurnEnd,
    TurnObserver,
)
from wave_tui.agent.local_shell import LocalShell, shell_command
from wave_tui.agent.model_gateway import ModelTarget
from wave_tui.agent.request import RequestBuilder
from wave_tui.agent.tool_executor import ToolExecutor
from wave_tui.config.records import record
from wave_tui.config.settings import EffectiveSettings, resolve_max_input_tokens
from wave_tui.llm.errors import ContextLengthExceeded, ModelError, RetryScheduled
from wave_tui.llm.replies import AssistantReply, StreamDelta
from wave_tui.llm.types import Message, Usage
from wave_tui.llm.usage import estimate_prompt_tokens
from wave_tui.tools.base import Tool, spec_of

MAX_ROUNDS_PER_TURN = 200  # model requests of one turn before it stops (AgentOptions overrides)
MAX_CONTINUATIONS = 3  # Stop observers asking to go on, per turn
STOP_FEEDBACK = "Stop hook feedback: "
HOOK_STOPPED = "turn stopped by a hook: "
REPLY_CUT = "reply cut at the output limit"  # req: PV12
SMALL_WINDOW = (
    "{model}'s context window is {window} tokens (Ollama num_ctx) and the first request "
    "(instructions, AGENTS.md, rules, MEMORY.md, tools) already takes about {used}: raise num_ctx "
    "(e.g. OLLAMA_CONTEXT_LENGTH=32768) or trim AGENTS.md / MEMORY.md"
)
ROUND_CAP = (
    "the turn stopped after {rounds} model requests, the limit for one turn; "
    "send a message to let the agent go on"
)
# Notice kinds of a retry: a rate limit may wait long (said everywhere, `wave -p` included);
# other retries wait seconds (said in the app).
RATE_LIMITED = "rate-limit"
RETRYING = "retry"
# max_turns: `--max-turns` of the whole run; max_rounds: the per-turn request cap.
StopReason = Literal["end_turn", "max_turns", "max_rounds"]


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
        max_rounds: int = MAX_ROUNDS_PER_TURN,
        windows: ContextWindows | None = None,
        shell: LocalShell | None = None,
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
        self._max_rounds = max_rounds
        self._shell = shell
        self.model_requests = 0
        # A custom command's `allowed-tools` and `model` hold for its turn only (CS2).
        self.turn_rules: tuple[str, ...] = ()
        self.turn_model: str | None = None
        # The only tools the model is offered (the SDK's `tools` option); None: every tool.
        self.offered_tools: frozenset[str] | None = None
        self.last_request: dict[str, Any] | None = None
        self.last_reply: Message | None = None
        self.last_usage: Usage | None = None
        # What the endpoint said of each model's window: Ollama's num_ctx, refusals (CV11).
        self.windows = windows if windows is not None else compaction.windows
        # The running turn's prompt as typed, and what it added: taken back when it fails.
        self._typed = ""
        self._prompt: list[Message] = []
        self._begun = False  # the turn is in the conversation: an abort is recorded

    def input_limit(self, model: str) -> int:
        """The window in force: configured, lowered to what the endpoint said (PV11, CV11)."""
        limit = resolve_max_input_tokens(self._settings(), model, self._max_input_tokens)
        return self.windows.limit(model, limit)

    async def _probe_window(self, target: ModelTarget, body: dict[str, Any]) -> None:
        """Once per model and session (req: PV11): Ollama truncates silently at num_ctx."""
        if self.windows.was_probed(target.model):
            return
        window = await target.client.probe_context_limit(target.model)
        self.windows.set_probed(target.model, window)
        used = estimate_prompt_tokens(body) if window is not None else 0
        if window is not None and used > window:
            self._emit(
                ev.Notice(
                    "warning", SMALL_WINDOW.format(model=target.model, window=window, used=used)
                )
            )

    # req: CV14
    def forget(self) -> None:
        """Nothing of the old conversation may be extracted again, nor counted (/clear)."""
        self.last_request = None
        self.last_reply = None
        self.last_usage = None

    # -- tools and context of the next request ------------------------------------------------
    def tools(self) -> dict[str, Tool]:
        """Built-in tools, then every ToolProvider's, asked afresh for each request."""
        merged = {t.name: t for t in self._builtin_tools()}
        for extension in self._extensions.tool_providers:
            for tool in extension.tools():
                merged.setdefault(tool.name, tool)
        if self.offered_tools is not None:
            return {name: t for name, t in merged.items() if name in self.offered_tools}
        return merged

    def sources(self) -> list[ContextSource]:
        return list(self._extensions.context_sources)

    def build_request(
        self,
        tools: dict[str, Tool] | None = None,
        model: str | None = None,
        messages: list[Message] | None = None,
    ) -> dict[str, Any]:
        """The next main request; `model` given, no endpoint is needed (`wave context`);
        `messages` instead of the conversation's (compaction measures and retries with it)."""
        model = model if model is not None else self._target().model
        return self.requests.build(
            model=model,
            settings=self._settings(),
            sources=self.sources(),
            messages=self.conversation.messages if messages is None else messages,
            tools=[
                spec_of(t)
                for t in (tools if tools is not None else self.tools()).values()
                # Runnable but not offered (the MCP leaves Exec folds): a call by name still runs.
                if getattr(t, "declared", True)
            ],
        )

    # -- a turn --------------------------------------------------------------------------------
    async def turn(self, text: str, abort: asyncio.Event) -> TurnResult:
        self._typed, self._prompt, self._begun = text, [], False
        return await self._guarded(self._turn(text, abort))

    async def go_on(self, reason: str, abort: asyncio.Event) -> TurnResult:
        """A Stop observer asked the agent to go on (HK8): its reason joins the conversation as
        an isMeta message and the rounds continue — the same turn, no new prompt."""
        self._typed, self._prompt, self._begun = "", [], False
        return await self._guarded(self._go_on(reason, abort))

    # req: FH8
    async def wake(self, _text: str, abort: asyncio.Event) -> TurnResult:
        """No prompt: what waits for the model (a background agent's task-notification, added
        by its context source before the request) starts a turn by itself."""
        self._typed, self._prompt, self._begun = "", [], True
        return await self._guarded(self._finish(abort))

    # req: CV3
    async def _guarded(self, work: Coroutine[Any, Any, TurnResult]) -> TurnResult:
        try:
            return await work
        except asyncio.CancelledError:
            self._end_command_grants()
            self.conversation.close_orphan_tool_calls(live=True)
            if self._begun:
                self.conversation.record_interruption()
            self._emit(ev.TurnEnded("aborted"))
            return TurnResult("aborted")
        except ModelError as exc:
            return self._failed(str(exc))
        except Exception as exc:  # a bug or an unforeseen failure must end the turn, not hang it
            return self._failed(f"unexpected error: {type(exc).__name__}: {exc}")

    async def _go_on(self, reason: str, abort: asyncio.Event) -> TurnResult:
        self.conversation.add(Message.user(f"{STOP_FEEDBACK}{reason}", is_meta=True))
        self._begun = True
        return await self._finish(abort)

    # req: CV4
    def _failed(self, message: str) -> TurnResult:
        """The turn ends in an error. A prompt the model never answered is taken back: marked
        failed in the transcript, left out of every later request, its text handed back to the
        input, so that the next prompt is never sent glued to it."""
        self.conversation.close_orphan_tool_calls(live=True)
        self._emit(ev.ErrorOccurred(message))
        if self._prompt and self.conversation.take_back(self._prompt, message):
            typed = ATTACHED_BLOCK.sub("", self._typed)  # `@path` stays; its file is read again
            self._emit(ev.PromptFailed(typed, message))
        self._emit(ev.TurnEnded("error"))
        return TurnResult("error", error=message)

    # req: UX15
    async def _turn(self, text: str, abort: asyncio.Event) -> TurnResult:
        self._apply_settings()
        typed = text
        if self._shell is not None and (command := shell_command(text)) is not None:
            return await self._run_shell(self._shell, command)
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
        user = prompt_message(text, typed)
        for attachments in self._extensions.prompt_attachments:
            user = await attachments.attach(user)
        self.conversation.add(user)
        self._prompt.append(user)
        self._begun = True
        self._emit(ev.UserMessageAdded(user))
        for extra in context:
            added = Message.user(extra, is_meta=True)
            self.conversation.add(added)
            self._prompt.append(added)
        return await self._finish(abort)

    async def _run_shell(self, shell: LocalShell, command: str) -> TurnResult:
        """`!cmd`: run here, not by the model; a stopped one ends as an aborted turn."""
        run = await shell.run(command)
        status: ev.TurnStatus = "aborted" if run.ending == "interrupted" else "completed"
        return TurnResult(status, run.output, command=True)

    async def _finish(self, abort: asyncio.Event) -> TurnResult:
        try:
            final, stop = await self._rounds(abort)
        finally:
            self._end_command_grants()
        self._emit(ev.TurnEnded("completed", final))
        error = ROUND_CAP.format(rounds=self._max_rounds) if stop == "max_rounds" else None
        return TurnResult("completed", final, error, usage=self.last_usage, stop=stop)

    def _end_command_grants(self) -> None:
        if self.turn_rules or self.turn_model:
            self.turn_rules, self.turn_model = (), None
            self._apply_settings()

    # req: HL6
    async def _rounds(self, abort: asyncio.Event) -> tuple[str, StopReason]:
        reply: AssistantReply | None = None
        stop: StopReason = "end_turn"
        for _ in range(self._max_rounds):
            await self.compaction.compact_if_due()
            for source in self.sources():
                for message in source.before_request():
                    self.conversation.add(message)
            if self._max_requests is not None and self.model_requests >= self._max_requests:
                stop = "max_turns"
                break
            tools = self.tools()
            reply = await self._request(tools)
            if not reply.tool_calls:
                break
            stopped = await self.executor.run_round(reply.tool_calls, tools, abort)
            if stopped is not None:  # a hook's `continue: false`: said, and no next request
                self._emit(ev.Notice("warning", f"{HOOK_STOPPED}{stopped}"))
                break
        else:
            # The model still wanted tools after the last request a turn may make: said, never
            # a silent end (`wave -p` exits 1 with `error_max_turns`).
            stop = "max_rounds"
            self._emit(ev.Notice("limit", ROUND_CAP.format(rounds=self._max_rounds)))
        return (reply.content if reply else ""), stop

    # req: CV3
    def _keep_partial(self, message_id: str, text: str, reasoning: str) -> None:
        """Esc mid-reply: what the model had said stays in the conversation (the interruption
        note follows it); tool calls still streaming are dropped, they never ran."""
        if not text.strip():
            return
        partial = Message(
            id=message_id,
            role="assistant",
            content=text,
            reasoning=reasoning or None,
            meta={"interrupted": True},
        )
        self.conversation.add(partial)
        self._emit(ev.AssistantFinished(partial))

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

    # req: PV11
    # req: UX12
    async def _request(self, tools: dict[str, Tool]) -> AssistantReply:
        target = self._target()
        body = self.build_request(tools)
        # The window probe runs beside the request, so no turn waits a round trip for it; only
        # an endpoint known to be Ollama is asked (its port, or an earlier reply said so).
        probing = (
            asyncio.get_running_loop().create_task(self._probe_window(target, body))
            if not self.windows.was_probed(target.model) and target.client.speaks_ollama
            else None
        )
        self.last_request = body
        assistant_id = Message(role="assistant").id
        with self._extensions.watching_request(target.model) as watch:
            reply = await self._stream(assistant_id, target, body, tools, probing, watch)
            watch.replied(reply.usage, bool(reply.tool_calls))
        return self._replied(assistant_id, target, reply)

    async def _stream(
        self,
        assistant_id: str,
        target: ModelTarget,
        body: dict[str, Any],
        tools: dict[str, Tool],
        probing: asyncio.Task[None] | None,
        watch: RequestWatch,
    ) -> AssistantReply:
        """The request streamed (retried after an overflow), its deltas announced as they come."""
        self._emit(ev.AssistantStarted(assistant_id))
        said: list[str] = []
        thought: list[str] = []

        def on_delta(delta: StreamDelta) -> None:
            watch.delta()
            if delta.kind == "text":
                said.append(delta.text)
                self._emit(ev.TextDelta(assistant_id, delta.text))
            elif delta.kind == "reasoning":
                thought.append(delta.text)
                self._emit(ev.ReasoningDelta(assistant_id, delta.text))

        def on_retry(retry: RetryScheduled) -> None:  # req: AC3
            kind = RATE_LIMITED if retry.cause == "rate_limit" else RETRYING
            if retry.cause == "learned":  # the session goes on changed: worth a warning
                kind = "warning"
            self._emit(ev.Notice(kind, retry.line()))

        async def send(retry: dict[str, Any]) -> AssistantReply:
            self.last_request = retry
            said.clear()
            thought.clear()
            return await target.client.stream_chat(retry, on_delta, on_retry)

        try:
            try:
                return await target.client.stream_chat(body, on_delta, on_retry)
            except ContextLengthExceeded as exc:
                return await self.compaction.overflowed(
                    exc, body, lambda messages: self.build_request(tools, messages=messages), send
                )
        except asyncio.CancelledError:
            self._keep_partial(assistant_id, "".join(said), "".join(thought))
            raise
        finally:
            if probing is not None:
                await probing  # never raises: a failed probe is "not Ollama"

    def _replied(
        self, assistant_id: str, target: ModelTarget, reply: AssistantReply
    ) -> AssistantReply:
        """The reply into the conversation, and what it says announced."""
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
        if reply.cut:
            self._emit(ev.Notice("cut", REPLY_CUT))
        if reply.usage is not None:
            self.last_usage = reply.usage
            self._emit(ev.UsageUpdated(reply.usage, target.model))
            self.compaction.after_usage(reply.usage, self.input_limit(target.model))
        return reply
