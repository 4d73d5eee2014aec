"""The agent service: a thin composition of the loop's parts, and its public async API.

Parts (one job each): `Conversation` (messages, transcript, restore, read state),
`ModelGateway` (the client, from an injected factory), `RequestBuilder` (system prompt and
request body), `ToolExecutor` (one round of tool calls), `CompactionFlow`, `TurnRunner` (the
loop), `TurnQueue` (turns one after another, abort), `ConversationSwitch` (restore, resume,
clear), `SettingsApplication` (what the settings in force change) and the `CommandRegistry`
with the built-in commands. Features plug in as extensions
(`add_extension`), each for the protocols of `agent.extensions` it names — never in the loop's
body.

UI-free: the front ends drive it through `AgentSession` and listen to its events.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wave_tui.agent import events as ev
from wave_tui.agent.agent_options import AgentOptions
from wave_tui.agent.command_handling import register_builtin_commands
from wave_tui.agent.commands import CommandRegistry
from wave_tui.agent.compaction import CompactionBreaker
from wave_tui.agent.compaction_flow import CompactionFlow
from wave_tui.agent.context_window import ContextWindows
from wave_tui.agent.conversation import READ_META, Conversation
from wave_tui.agent.extensions import (
    ContextSource,
    Extension,
    Extensions,
    StatusContribution,
    merge_status,
)
from wave_tui.agent.local_shell import LocalShell
from wave_tui.agent.model_gateway import (
    ClientFactory,
    ModelGateway,
    ModelTarget,
    default_client_factory,
)
from wave_tui.agent.request import AppendedSystemPrompt, RequestBuilder, SystemPrompt
from wave_tui.agent.resume import ConversationSwitch, DeferredCleanup, start_cleanup
from wave_tui.agent.settings_apply import SettingsApplication
from wave_tui.agent.tool_executor import (
    Ask,
    ToolExecutor,
    ToolPipeline,
    asking_agent,
    with_permission_hooks,
)
from wave_tui.agent.transcript import Transcript
from wave_tui.agent.turn_queue import AgentDestroyed, TurnQueue
from wave_tui.agent.turn_runner import (
    MAX_CONTINUATIONS,
    MAX_ROUNDS_PER_TURN,
    TurnResult,
    TurnRunner,
)
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import BARE_SCOPES, SCOPES, EffectiveSettings, SettingsStore
from wave_tui.config.trust import TrustMode
from wave_tui.files.read_state import ReadState
from wave_tui.llm.types import Message, Usage
from wave_tui.llm.usage import estimate_prompt_tokens
from wave_tui.permissions.policy import PermissionMode, PermissionPolicy, SafeZones
from wave_tui.permissions.tool_table import key_argument
from wave_tui.tools.background import BackgroundManager
from wave_tui.tools.base import Tool, ToolContexts
from wave_tui.tools.foreground import ForegroundChange
from wave_tui.tools.registry import builtin_tools

if TYPE_CHECKING:
    from wave_tui.llm.client import ModelClient

Listener = Callable[[ev.AgentEvent], None]
Approver = Callable[[str, dict[str, Any], str], Awaitable[ev.PermissionReply]]

__all__ = [
    "MAX_CONTINUATIONS",
    "MAX_ROUNDS_PER_TURN",
    "READ_META",
    "AgentDestroyed",
    "AgentOptions",
    "AgentService",
    "Approver",
    "TurnResult",
    "key_argument",
]


class AgentService:
    # req: HL5
    def __init__(
        self,
        options: AgentOptions,
        *,
        paths: WavePaths | None = None,
        store: SettingsStore | None = None,
        tools: list[Tool] | None = None,
        approver: Approver | None = None,
        client_factory: ClientFactory = default_client_factory,
    ) -> None:
        self.options = options
        self.paths = paths or WavePaths.for_workdir(options.workdir)
        # `wave -p` keeps the invoker's trust in the project's permissions (config/widening.py).
        trust: TrustMode = "invoker" if options.headless else "ask"
        self.store = store or SettingsStore(
            self.paths, options.environ, trust=trust, scopes=BARE_SCOPES if options.bare else SCOPES
        )
        self.clock = options.clock
        # The session's one background runner: Bash's run_in_background, BashOutput, TaskStop.
        self.background = BackgroundManager(self.paths.background_dir)
        self.background.foreground.subscribe(self._foreground_changed)
        self.tools: list[Tool] = tools if tools is not None else builtin_tools(self.background)
        self.safe_zones = SafeZones()
        self.policy = PermissionPolicy(self.paths.project_root, safe_zones=self.safe_zones)
        self.extensions = Extensions()
        self.settings: EffectiveSettings = self.store.current()
        self._approver = approver
        self._listeners: list[Listener] = []
        self._cleanup: DeferredCleanup | None = None
        self._started = False
        self._model_override: str | None = None
        self.conversation = Conversation(self.paths, self._emit)
        self.gateway = ModelGateway(client_factory)
        self.requests = RequestBuilder(self.paths, self.clock())
        self.windows = ContextWindows()  # what the endpoint said of each model's window
        self.compaction = CompactionFlow(
            conversation=self.conversation,
            target=self._model_target,
            fast_model=lambda: self.settings.fast_model,
            plan_mode=lambda: self.policy.mode == "plan",
            emit=self._emit,
            notify=self.notify,
            restored=lambda: self.switch.after_compaction(),
            settings=lambda: self.settings,
            extensions=self.extensions,
            windows=self.windows,
            limit=lambda model: self.runner.input_limit(model),
            overhead=lambda: estimate_prompt_tokens(self.runner.build_request(messages=[])),
        )
        self.executor = ToolExecutor(
            conversation=self.conversation,
            pipeline=ToolPipeline(
                policy=self.policy,
                emit=self._emit,
                extensions=self.extensions,
                contexts=ToolContexts(
                    self.paths.project_root,
                    read_state=lambda: self.read_state,
                    env=lambda: self.settings.env,
                    clock=self.clock,
                ),
                asker=self._asker,
            ),
        )
        self.commands = CommandRegistry()
        register_builtin_commands(self.commands, self)
        self.runner = TurnRunner(
            conversation=self.conversation,
            requests=self.requests,
            executor=self.executor,
            compaction=self.compaction,
            commands=self.commands,
            emit=self._emit,
            target=self._model_target,
            settings=lambda: self.settings,
            apply_settings=lambda: self._apply_settings(self.store.current()),
            extensions=self.extensions,
            builtin_tools=lambda: self.tools,
            max_input_tokens=options.max_input_tokens,
            max_requests=options.max_turns,
            max_rounds=(
                options.max_rounds_per_turn
                if options.max_rounds_per_turn is not None
                else MAX_ROUNDS_PER_TURN
            ),
            windows=self.windows,
            shell=LocalShell(
                lambda: self.workdir,
                lambda: self.settings.env,
                self.conversation.add,
                self._emit,
            ),
        )
        self.settings_application = SettingsApplication(
            options=options,
            store=self.store,
            policy=self.policy,
            turn_rules=lambda: self.runner.turn_rules,
            emit=self._emit,
            extensions=self.extensions,
        )
        self.turns = TurnQueue(self.runner, self._emit, before_turn=self.start)
        self.switch = ConversationSwitch(
            conversation=self.conversation,
            runner=self.runner,
            compaction=self.compaction,
            requests=self.requests,
            extensions=self.extensions,
        )
        if options.append_system_prompt:
            self.add_extension(AppendedSystemPrompt(options.append_system_prompt), ContextSource)

    # -- state kept by the parts (read-only views) ---------------------------------------------
    @property
    def messages(self) -> list[Message]:
        return self.conversation.messages

    @property
    def session_id(self) -> str:
        return self.conversation.session_id

    @property
    def transcript(self) -> Transcript:
        return self.conversation.transcript

    @property
    def read_state(self) -> ReadState:
        return self.conversation.read_state

    @property
    def last_request(self) -> dict[str, Any] | None:
        return self.runner.last_request

    @property
    def last_reply(self) -> Message | None:
        return self.runner.last_reply

    @property
    def last_usage(self) -> Usage | None:
        return self.runner.last_usage

    @property
    def model_requests(self) -> int:
        """Main-agent model requests so far (`num_turns` of `--output-format json`)."""
        return self.runner.model_requests

    @property
    def workdir(self) -> Path:
        """Where the session works now: the project root, or the worktree it moved into. The
        main pipeline's tool contexts are its one home; everything else reads it from here."""
        return self.executor.pipeline.workdir

    def move_workdir(self, new: Path) -> Path:
        """Move the session to `new` (a worktree, or back): the tools, Bash, `!cmd`, the
        permission policy's project and every `WorkdirObserver` (nested memory, rules) follow.
        Returns the old working directory."""
        old = self.workdir
        self.executor.pipeline.move_to(new)
        self.policy.workdir = new
        for observer in self.extensions.workdir_observers:
            observer.on_workdir_changed(old, new)
        return old

    def all_tools(self) -> list[Tool]:
        """Built-in tools and every ToolProvider's, as the next request offers them."""
        return list(self.runner.tools().values())

    @property
    def compacting(self) -> bool:
        return self.compaction.running

    @property
    def breaker(self) -> CompactionBreaker:
        return self.compaction.breaker

    # -- lifecycle -----------------------------------------------------------------------------
    def add_extension(self, extension: Extension, *seams: type) -> None:
        """Plug a feature in for the seams named (protocols of `agent.extensions`)."""
        self.extensions.add(extension, *seams)

    def start(self) -> None:
        """Restore the session (--continue / --resume) and apply the settings in force."""
        if self._started:
            return
        self._started = True
        self.switch.restore_at_start(self.options.resume, self.options.continue_last)
        self._apply_settings(self.store.current())
        self._cleanup = start_cleanup(
            self.paths, self.settings.cleanup_period_days, self.session_id
        )

    def full_thread(self) -> list[Message]:
        """Every message of this conversation across compactions, oldest first."""
        return self.conversation.full_thread()

    async def destroy(self) -> None:
        """Abort the turn, await background work (e.g. an extraction fork), release resources."""
        if self.turns.closed:
            return
        await self.turns.close()
        if self._cleanup is not None:
            with contextlib.suppress(BaseException):
                await self._cleanup.finish()
        for extension in self.extensions.session_observers:
            await extension.aclose()
        await self.background.aclose()
        await self.gateway.aclose()

    # -- events --------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def notify(self, kind: str, text: str) -> None:
        """A compact line for the user (extensions report through here)."""
        self._emit(ev.Notice(kind, text))

    def _foreground_changed(self, change: ForegroundChange) -> None:
        current = self.background.foreground.current
        label = current.label if current is not None else None
        self._emit(ev.ForegroundChanged(label, change == "backgrounded"))

    def publish(self, event: ev.AgentEvent) -> None:
        """Emit an event on behalf of an extension (the extraction fork's progress)."""
        self._emit(event)

    def _emit(self, event: ev.AgentEvent) -> None:
        for observer in self.extensions.event_observers:
            observer.on_event(event)
        for listener in list(self._listeners):
            listener(event)

    # -- settings and status -------------------------------------------------------------------
    def _apply_settings(self, settings: EffectiveSettings) -> None:
        self.settings = settings  # first: observers told below read it from the service
        self.settings_application.apply(settings)

    # req: UX8
    def apply_current_settings(self) -> None:
        """Apply the settings in force now, between turns (settings.json edited while the app
        runs): the status, the endpoint and the permission rules follow at once."""
        if not self.busy:
            self._apply_settings(self.store.current())

    def current_settings(self) -> EffectiveSettings:
        return self.store.current()

    def status(self) -> StatusContribution:
        """What the extensions contribute to the status, merged."""
        return merge_status(e.status() for e in self.extensions.status_sources)

    def rule_activations(self) -> dict[str, tuple[str, str]] | None:
        """Why each conditional rule is loaded: rule id -> (trigger file, pattern); None
        when no memory injection is plugged in."""
        value = self.status().rule_activations
        return dict(value) if value is not None else None

    @property
    def background_busy(self) -> bool:
        """Background work that exit must wait for (a memory extraction in flight, C4)."""
        return self.status().extraction_running

    @property
    def turns_until_next(self) -> int | None:
        """Completed turns until the next memory extraction (None: auto memory off)."""
        return self.status().turns_until_extraction

    @property
    def model(self) -> str | None:
        return (
            self.runner.turn_model
            or self._model_override
            or self.options.model
            or self.settings.model
        )

    def switch_model(self, name: str) -> None:
        """`/model NAME`: this session uses `name` from the next request."""
        self._model_override = name

    def system_prompt(self) -> SystemPrompt:
        return self.requests.system_prompt(self.settings, self.runner.sources())

    def _model_target(self) -> ModelTarget:
        return self.gateway.target(self.settings, self.model)

    def client(self) -> ModelClient:
        """The model client for the current settings (shared with the extraction fork)."""
        return self._model_target().client

    def build_request(self) -> dict[str, Any]:
        """The body the next main request would send (nothing is sent)."""
        return self.runner.build_request(model=self.model or "")

    # -- public API ----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.turns.busy

    @property
    def queue(self) -> list[str]:
        """Messages waiting for the running turn to end, oldest first."""
        return self.turns.waiting

    async def send(self, text: str) -> None:
        """Queue a user message; turns run one after another in the background."""
        await self.turns.send(text)

    def unqueue_last(self) -> str | None:
        """Take back the last queued message (to edit it); None when nothing waits."""
        return self.turns.take_last()

    def clear_queue(self) -> bool:
        """Drop every queued message; False when nothing waited."""
        return self.turns.drop_all()

    async def wait_idle(self) -> None:
        await self.turns.wait_idle()

    @property
    def aborting(self) -> bool:
        """The running turn was asked to stop (nothing may join the history mid-abort)."""
        return self.turns.aborting

    def abort(self) -> None:
        """Stop the running turn: the stream is cancelled and running tools are killed."""
        self.turns.abort()

    async def run_turn(self, text: str) -> TurnResult:
        """Run one message (or command); Stop observers may continue it a bounded number of
        times, each continuation a turn of its own with the observer's reason as prompt."""
        return await self.turns.run_turn(text)

    def clear(self) -> None:
        """Start a new, empty session (the old transcript stays on disk)."""
        self.switch.clear()
        self.notify("session", f"new conversation: session {self.session_id}")

    def resume(self, session_id: str) -> None:
        """Switch to another of the project's conversations (the resume picker). Raises
        FileNotFoundError for an unknown id, RuntimeError while a turn runs."""
        if self.busy:
            raise RuntimeError("wait for the turn to finish (or press Esc) before resuming")
        self.switch.resume(session_id)

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """The mode for the rest of the session (settings reloads keep it)."""
        self.options.permission_mode = mode
        self.policy.mode = mode

    async def compact(self, instructions: str | None = None) -> bool:
        """Summarise all but the last rounds into a new, linked session (never raises for a
        failed summary)."""
        return await self.compaction.compact(instructions)

    # -- tools ---------------------------------------------------------------------------------
    def permission_asker(self) -> Ask | None:
        """Who answers a permission question now (None: nobody, a refusal); subagents share it."""
        return self._asker()

    def _asker(self) -> Ask | None:
        if self.options.headless or (self._approver is None and not self._listeners):
            return None
        return with_permission_hooks(
            self._approver or self._ask_ui, self.extensions, self.notify, self.workdir
        )

    async def _ask_ui(self, tool: str, args: dict[str, Any], reason: str) -> ev.PermissionReply:
        future: asyncio.Future[ev.PermissionReply] = asyncio.get_running_loop().create_future()
        self._emit(ev.PermissionRequested(tool, args, reason, future, asking_agent()))
        return await future
