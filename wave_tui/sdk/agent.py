"""`Agent`: the SDK's one object — a wave session for a Python program.

`await Agent.create(**options)` builds the same session the app and `wave -p` run (the session
facade: memory, rules, auto memory and its extraction fork, hooks, MCP, tasks, subagents), with
004's options in snake_case. Here are the conversation (`send_message`, `stream`, `bang`, all
through one message queue so turns never overlap; `compact`, `clear_messages`,
`truncate_history`, `restore_session`) and `destroy()`, after which every method raises
`AgentDestroyed`; the base classes add the queue's API and the aborts (`agent_queue.py`), the
parts' APIs (`agent_extras.py`) and the state and permission API (`agent_state.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wave_tui.agent import events as ev
from wave_tui.agent.extensions import ContextSource, ContextSourceBase
from wave_tui.agent.prompts import language_section
from wave_tui.agent.turn_runner import TurnResult
from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import EffectiveSettings, SettingsStore
from wave_tui.config.sources import SettingsLayer
from wave_tui.features.lsp.config import SETTINGS_KEY as LSP_SERVERS
from wave_tui.features.user_hooks.engine import UserHooks
from wave_tui.llm.types import Usage
from wave_tui.permissions.policy import PermissionAnswer, PermissionReply
from wave_tui.sdk.agent_queue import AgentQueue, image_paths, is_slash, with_images
from wave_tui.sdk.callbacks import CallbackDispatcher, check_callbacks
from wave_tui.sdk.events import ErrorEvent, StreamEvent, TurnEnd, to_stream_event
from wave_tui.sdk.history import truncate_history
from wave_tui.sdk.message_queue import MessageQueue, QueuedMessage, QueuedType
from wave_tui.sdk.options import SdkOptions, check_options
from wave_tui.sdk.workflows import AgentWorkflows
from wave_tui.session.facade import AgentSession, create_session
from wave_tui.session.types import AgentOptions

if TYPE_CHECKING:
    from wave_tui.sdk.attached import AttachedAgent, CanUseTool

_NO_CALLBACK = "no can_use_tool callback was given, so calls that need approval are refused"


class _ProgramSettings(SettingsStore):
    """The settings files, plus the program's `hooks` and `mcp_servers` as one more layer of
    the user's scope (the program is its own user: nothing to trust), read after the files."""

    def __init__(self, paths: WavePaths, environ: dict[str, str], layer: dict[str, Any]) -> None:
        super().__init__(paths, environ)
        self._layer = SettingsLayer(paths.project_root / "<Agent.create options>", "user", layer)

    # req: SX2
    def layers(self) -> list[SettingsLayer]:
        files = super().layers()
        if LSP_SERVERS in self._layer.data:
            # 004: the program's `lsp_servers` override the files' servers, not join them.
            files = [_without(layer, LSP_SERVERS) for layer in files]
        return [*files, self._layer]


def _without(layer: SettingsLayer, key: str) -> SettingsLayer:
    if key not in layer.data:
        return layer
    data = {k: v for k, v in layer.data.items() if k != key}
    return SettingsLayer(layer.path, layer.scope, data)


class _Language(ContextSourceBase):
    """`language`: the same section of the system prompt as the `language` setting."""

    def __init__(self, language: str) -> None:
        self.section = language_section(language) or ""

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        return [] if settings.language else [self.section]


def _plugin_dirs(workdir: Path, plugins: Sequence[Mapping[str, Any]]) -> tuple[Path, ...]:
    return tuple((workdir / Path(p["path"]).expanduser()).resolve() for p in plugins)


_BEHAVIORS = {"allow": True, "deny": False}


# req: HR10
def _answer(result: object) -> PermissionAnswer:
    """`{"behavior": "allow"|"deny", "message"?}` or 004's `{"allowed": bool}`. Both may be
    given; the call is allowed only when every one given says so: an answer that contradicts
    itself denies (a program's bug must never open a door)."""
    if isinstance(result, dict):
        votes: list[bool | None] = []
        if "behavior" in result:
            votes.append(
                _BEHAVIORS.get(result["behavior"]) if isinstance(result["behavior"], str) else None
            )
        if "allowed" in result:
            allowed = result["allowed"]
            votes.append(allowed if isinstance(allowed, bool) else None)
        if False in votes:
            return PermissionAnswer("deny", feedback=str(result.get("message") or ""))
        if votes and None not in votes:
            return PermissionAnswer("allow_once")
    raise ValueError(f"can_use_tool must return {{'behavior': 'allow'|'deny'}}, not {result!r}")


Listener = Callable[[ev.AgentEvent], None]


# req: SD1
# req: SD8
class Agent(AgentQueue, AgentWorkflows):
    """A wave agent session for a program; make one with `await Agent.create(**options)`."""

    def __init__(self, session: AgentSession, options: SdkOptions) -> None:
        # Made by `create` only: the options are checked and the session started there.
        self._session = session
        self._options = options
        self._destroyed = False
        self._can_use_tool = options.can_use_tool
        self._callbacks = CallbackDispatcher(
            check_callbacks(options.callbacks), lambda: self._agent().session_id
        )
        self._callbacks.logger = options.logger
        self._last_compact: str | None = None
        self._elicitations: set[asyncio.Task[None]] = set()
        self._queue = MessageQueue(self._run_queued, self._queue_changed)
        # A `stream()` hears the events of its own turn only: its listener is plugged in while
        # that message runs.
        self._stream_listeners: dict[str, Listener] = {}
        self._unwatch: list[Callable[[], None]] = []
        self._unsubscribe = session.subscribe(self._on_event)

    # -- creation ------------------------------------------------------------------------------
    @classmethod
    async def create(cls, **options: Any) -> Agent:
        """A started agent. Raises TypeError / ValueError naming a wrong option, and
        FileNotFoundError for a `restore_session_id` this project does not have."""
        checked = check_options(options)
        check_callbacks(checked.callbacks)
        agent_options = AgentOptions(
            workdir=checked.workdir,
            model=checked.model,
            permission_mode=checked.permission_mode,
            continue_last=checked.continue_last_session,
            resume=checked.restore_session_id,
            environ=checked.environ,
            max_input_tokens=checked.max_input_tokens,
            allowed_tools=checked.allowed_tools,
            disallowed_tools=checked.disallowed_tools,
            # `plugins: [{"path": …}]`: loaded as enabled, the program's own (nothing to trust)
            plugin_dirs=_plugin_dirs(checked.workdir, checked.plugins),
            worktree=checked.worktree,
            # 004: `mcp_servers` overrides the project's `.mcp.json`.
            read_mcp_json=checked.mcp_servers is None,
            subagent_headers=checked.subagent_headers,
            new_worktree=checked.is_new_worktree,
        )
        layer: dict[str, Any] = {}
        if checked.hooks is not None:
            layer["hooks"] = dict(checked.hooks)
        if checked.mcp_servers is not None:
            layer["mcpServers"] = dict(checked.mcp_servers)
        if checked.lsp_servers is not None:
            layer[LSP_SERVERS] = dict(checked.lsp_servers)
        store = _ProgramSettings(WavePaths.for_workdir(checked.workdir), checked.environ, layer)
        holder: list[Agent] = []

        async def approve(tool: str, args: dict[str, Any], reason: str) -> PermissionReply:
            return await holder[0]._approve(tool, args, reason)

        session = create_session(agent_options, approver=approve, store=store)
        service = session.service
        assert service is not None  # create_session always has its agent
        if checked.system_prompt is not None:
            service.requests.static_prompt = checked.system_prompt
        service.gateway.streaming = checked.stream
        service.tools.extend(checked.custom_tools)
        if checked.language is not None:
            service.add_extension(_Language(checked.language), ContextSource)
        agent = cls(session, checked)
        holder.append(agent)
        try:
            session.start()
            agent._apply_start_options()
            agent._check_models()  # the models configured at the start: no callback
            await agent._enter_worktree()
            await session.wait_tools_started()
            agent._unwatch = agent._watch_parts()
        except BaseException:
            await agent.destroy()
            raise
        return agent

    # req: DM2
    @staticmethod
    async def attach(
        session_id: str,
        *,
        workdir: str | Path | None = None,
        can_use_tool: CanUseTool | None = None,
    ) -> AttachedAgent:
        """A `wave daemon` session, attached: its conversation runs in the daemon and goes on
        after `detach()`. Raises AttachError (one line) for no daemon or no such session."""
        from wave_tui.sdk.attached import AttachedAgent

        return await AttachedAgent.attach(session_id, workdir=workdir, can_use_tool=can_use_tool)

    async def __aenter__(self) -> Agent:
        self._check()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.destroy()

    # -- state ---------------------------------------------------------------------------------
    @property
    def usages(self) -> list[Usage]:
        """The usage of each main model request, oldest first."""
        self._check()
        return list(self._callbacks.usages)

    @property
    def workdir(self) -> Path:
        """The folder the agent was created for (`working_directory`: where it works now)."""
        return self._options.workdir

    # -- conversation --------------------------------------------------------------------------
    # req: SD3
    # req: SX1
    async def send_message(self, text: str, images: Sequence[str | Path] | None = None) -> TurnEnd:
        """Send one message (or slash command) and return how its turn ended. While another
        turn runs the message waits in the queue (`queued_messages`) and runs after it; a
        message taken out of the queue ends "aborted". `images` are image files, attached as
        `@path` mentions of the message."""
        self._check()
        with_images(text, images)  # wrong input is refused now, not when its turn comes
        result = await self._submit(text, image_paths(images), "message")
        return TurnEnd(result.status, result.text, result.error)

    # req: SX4
    async def bang(self, command: str) -> TurnEnd:
        """Run a shell command as `!command` does in the app: its output joins the
        conversation, the model is not asked. Queued like a message."""
        self._check()
        if not isinstance(command, str) or not command.strip():
            raise ValueError("command must be a non-empty str")
        result = await self._submit(command, (), "bash")
        return TurnEnd(result.status, result.text, result.error)

    async def _submit(
        self,
        content: str,
        images: tuple[str, ...],
        kind: QueuedType,
        listener: Listener | None = None,
    ) -> TurnResult:
        message, done = self._queue.enqueue(content, images, kind)
        if listener is not None:
            self._stream_listeners[message.id] = listener
        try:
            return await self._queue.wait(message, done)
        except asyncio.CancelledError:
            # The caller gave up: a waiting message left the queue (`wait`), a running one stops.
            running = self._queue.running
            if running is not None and running.id == message.id:
                self._session.abort()
            raise
        finally:
            self._stream_listeners.pop(message.id, None)

    async def _run_queued(self, message: QueuedMessage) -> TurnResult:
        if message.type == "bash":
            text = "!" + message.content
        else:
            text = with_images(message.content, message.images or None)
        listener = self._stream_listeners.get(message.id)
        unsubscribe = self._session.subscribe(listener) if listener is not None else None
        command = message.type == "bash" or is_slash(message)
        if command:
            self._callbacks.call("on_command_running_change", True)
        try:
            return await self._session.run_turn(text)
        finally:
            if unsubscribe is not None:
                unsubscribe()
            if command:
                self._callbacks.call("on_command_running_change", False)

    def _queue_changed(self, waiting: list[QueuedMessage]) -> None:
        self._callbacks.call("on_queued_messages_change", list(waiting))

    async def stream(
        self, text: str, images: Sequence[str | Path] | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Run one message and yield its typed events as they happen; `TurnEnd` comes last.
        Leaving the loop early aborts the turn."""
        self._check()
        queue: asyncio.Queue[StreamEvent] = asyncio.Queue()

        def listen(event: ev.AgentEvent) -> None:
            for shown in self._shown(event):
                mapped = to_stream_event(shown)
                if mapped is not None:
                    queue.put_nowait(mapped)

        with_images(text, images)
        turn = asyncio.ensure_future(self._submit(text, image_paths(images), "message", listen))
        getter: asyncio.Future[StreamEvent] | None = None
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                await asyncio.wait({getter, turn}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                    continue
                getter.cancel()
                while not queue.empty():
                    yield queue.get_nowait()
                result = turn.result()
                if result.status == "error" and result.error:
                    yield ErrorEvent(result.error)
                yield TurnEnd(result.status, result.text, result.error)
                return
        finally:
            if getter is not None:
                getter.cancel()
            if not turn.done():
                turn.cancel()  # waiting: out of the queue; running: aborted (`_submit`)
                with contextlib.suppress(BaseException):
                    await turn

    # req: SX4
    async def clear_messages(self) -> None:
        """Start a new, empty conversation (a new session id; the old transcript stays on
        disk), as `/clear` does: the SessionEnd hooks run now (reason "clear"), the SessionStart
        hooks before the next message (source "clear"). RuntimeError while a turn runs."""
        self._check()
        if self._queue.running is not None or self._agent().busy:
            raise RuntimeError("a turn runs: abort it or wait before clearing the messages")
        hooks = self._agent().extensions.of_type(UserHooks)
        if hooks is not None:
            await hooks.run_session_end("clear")
        self._session.clear()
        self._callbacks.check_session()

    async def compact(self, instructions: str | None = None) -> bool:
        """Summarise the conversation into a new, linked session; False when nothing was
        compacted."""
        self._check()
        done = await self._session.compact(instructions)
        self._compacted()
        return done

    async def truncate_history(self, index: int) -> None:
        """Keep `messages[:index]`; `index` is the index of a user message."""
        self._check()
        await truncate_history(self._agent(), index)

    async def restore_session(self, session_id: str) -> None:
        """Continue another of this project's sessions. Raises FileNotFoundError for an
        unknown id, RuntimeError while a turn runs."""
        self._check()
        if not isinstance(session_id, str):
            raise TypeError(f"session_id must be a str, not {type(session_id).__name__}")
        self._session.picker.resume(session_id)
        self._callbacks.check_session()

    async def destroy(self) -> None:
        """Abort the turn, wait for background work (the memory extraction), close MCP servers
        and release everything. A second call does nothing."""
        if self._destroyed:
            return
        self._destroyed = True
        self._unsubscribe()
        for unwatch in self._unwatch:
            unwatch()
        self._queue.close()
        await self._session.close()
        await self._queue.join()
        await self._callbacks.drain()

    def _replace_tool(self, replacement: Any) -> None:
        """Put `replacement` where the built-in tool of its name is (`wave --acp`: Read and
        Write through the client's file system). Not public: front ends of this package only."""
        tools = self._agent().tools
        for i, existing in enumerate(tools):
            if existing.name == replacement.name:
                tools[i] = replacement
                return
        tools.append(replacement)

    # -- the agent's side ----------------------------------------------------------------------
    def _on_event(self, event: ev.AgentEvent) -> None:
        for shown in self._shown(event):
            self._callbacks.on_event(shown)
        if not self._destroyed:
            self._check_models()
        if isinstance(event, ev.ElicitationRequested):
            from wave_tui.sdk import elicitation

            elicitation.start(self._options.on_elicitation, event, self._elicitations)
        if (
            isinstance(event, ev.BackgroundChanged)
            and event.kind == "compaction"
            and not event.running
        ):
            self._compacted()

    def _compacted(self) -> None:
        messages = self._session.messages()
        first = messages[0] if messages else None
        if first is not None and first.kind == "compress" and first.id != self._last_compact:
            self._last_compact = first.id
            self._callbacks.compacted(first.content)

    # req: SD6
    async def _approve(self, tool: str, args: dict[str, Any], reason: str) -> PermissionReply:
        if self._can_use_tool is None:
            return PermissionAnswer("deny", feedback=_NO_CALLBACK)
        try:
            result = self._can_use_tool(tool, dict(args))
            if inspect.isawaitable(result):
                result = await result
            return _answer(result)
        except Exception as exc:  # the program's callback: refused, said once, the turn goes on
            self._callbacks.say(
                f"wave: can_use_tool raised {type(exc).__name__}: {exc}; {tool} refused"
            )
            return PermissionAnswer("deny", feedback=f"can_use_tool failed: {exc}")
