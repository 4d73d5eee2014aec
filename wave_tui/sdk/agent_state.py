"""What an `Agent` tells and sets besides the conversation (004 §2, §5).

The properties (the session file, tokens, memory, what runs now, the task list, the working
directory), the model, working-directory and permission methods and the options that act on the
started session, as the base class of `Agent` (`agent_extras.py` adds the parts' APIs,
`agent.py` the conversation and the lifecycle). Everything here reads or sets the same session
facade the app uses; nothing is kept twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentService
from wave_tui.agent.turn_queue import AgentDestroyed
from wave_tui.config.records import record
from wave_tui.features.commands.skills import Skills
from wave_tui.features.tasks.parts import TaskFeatures
from wave_tui.llm.types import Message
from wave_tui.permissions.policy import PermissionMode
from wave_tui.permissions.rules import PermissionRule
from wave_tui.sdk.callbacks import CallbackDispatcher
from wave_tui.sdk.events import as_whole
from wave_tui.sdk.message_queue import MessageQueue
from wave_tui.sdk.options import SdkOptions
from wave_tui.session.facade import AgentSession
from wave_tui.session.model_menu import model_choices


@record
class PermissionCheck:
    """`check_permission`: what the rules and the mode say of a call before anyone is asked
    ("ask": the `can_use_tool` callback would be asked)."""

    behavior: Literal["allow", "ask", "deny"]
    reason: str


def read_or_empty(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return ""


class AgentState:
    """The part of `Agent` that is state, permissions, memory and settings (see `Agent`)."""

    _session: AgentSession
    _destroyed: bool
    _queue: MessageQueue
    _callbacks: CallbackDispatcher
    _options: SdkOptions

    def _check(self) -> None:
        if self._destroyed:
            raise AgentDestroyed()

    def _agent(self) -> AgentService:
        service = self._session.service
        assert service is not None  # an SDK session always has its agent
        return service

    # req: SX2
    def _apply_start_options(self) -> None:
        """The options that act on the started session: the tools offered, the messages a new
        session starts with, the skills kept as they are now (`watch_skills=False`)."""
        options = self._options
        service = self._agent()
        if options.tools is not None:
            service.runner.offered_tools = frozenset(options.tools)
        for message in options.messages:
            service.conversation.add(message.model_copy(deep=True))
        if not options.watch_skills:
            skills = service.extensions.of_type(Skills)
            if skills is not None:
                skills.freeze()

    async def _enter_worktree(self) -> None:
        """`name`: the session works in that git worktree from the start (made when missing,
        as `wave --worktree NAME`); ValueError saying why it cannot."""
        if self._options.worktree is not None:
            problem = await self._session.enter_start_worktree()
            if problem is not None:
                raise ValueError(f"option 'name': {problem}")

    def _shown(self, event: ev.AgentEvent) -> list[ev.AgentEvent]:
        """`stream=False`: each reply's text and reasoning come whole, when it ends."""
        return [event] if self._options.stream else as_whole(event)

    # -- properties (004 §2) -------------------------------------------------------------------
    @property
    def session_id(self) -> str:
        self._check()
        return str(self._agent().session_id)

    @property
    def messages(self) -> list[Message]:
        """The conversation so far (copies: changing them changes nothing)."""
        self._check()
        return [m.model_copy(deep=True) for m in self._session.messages()]

    # req: SX3
    @property
    def session_file_path(self) -> Path:
        """The session's JSONL transcript (it exists once the first message is written)."""
        self._check()
        return self._agent().transcript.path

    @property
    def latest_total_tokens(self) -> int:
        """`total_tokens` of the last main request (0 before the first)."""
        self._check()
        usage = self._agent().last_usage
        return usage.total_tokens if usage is not None else 0

    @property
    def working_directory(self) -> Path:
        """Where the tools work now (the project, or the worktree the session moved into)."""
        self._check()
        return self._agent().workdir

    @property
    def project_memory(self) -> str:
        """The project's AGENTS.md as it is on disk now ("" when there is none)."""
        self._check()
        return read_or_empty(self._agent().paths.project_agents_md)

    @property
    def user_memory(self) -> str:
        """`~/.wave/AGENTS.md` as it is on disk now ("" when there is none)."""
        self._check()
        return read_or_empty(self._agent().paths.user_agents_md)

    @property
    def is_loading(self) -> bool:
        """A message is being answered (a turn runs)."""
        self._check()
        return self._agent().busy or self._queue.running is not None

    @property
    def is_compacting(self) -> bool:
        self._check()
        return self._agent().compacting

    @property
    def is_command_running(self) -> bool:
        """A `bang()` command or a slash command runs now."""
        self._check()
        running = self._queue.running
        return running is not None and (
            running.type == "bash" or running.content.lstrip().startswith("/")
        )

    @property
    def task_list_id(self) -> str:
        """The id of the task list the Task tools write (`~/.wave/tasks/<id>/`)."""
        self._check()
        tasks = self._agent().extensions.of_type(TaskFeatures)
        return tasks.store.list_id if tasks is not None else ""

    @property
    def has_running_background_work(self) -> bool:
        """A background command or subagent runs, or a memory extraction is in flight."""
        self._check()
        service = self._agent()
        running = any(t.status == "running" for t in service.background.tasks())
        return running or service.background_busy

    # -- model and working directory (004 §2) -----------------------------------------------
    # req: SX4
    def set_model(self, model: str) -> None:
        """Use `model` from the next request on (`/model NAME`)."""
        self._check()
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty str")
        self._agent().switch_model(model)
        self._callbacks.call("on_model_change", model)
        self._check_models()

    # req: SX5
    def _check_models(self) -> None:
        """`on_configured_models_change`: the models the `/model` picker offers from the
        settings (`model`, `fastModel`, `models.*`, the one in use) changed."""
        service = self._agent()
        self._callbacks.configured_models(
            [c.name for c in model_choices(service.model, service.settings)]
        )

    def set_workdir(self, workdir: str | Path) -> None:
        """Move the tools, Bash and the permission checks to another folder."""
        self._check()
        path = Path(workdir).expanduser().resolve()
        if not path.is_dir():
            raise ValueError(f"not a folder: {path}")
        self._agent().move_workdir(path)
        self._callbacks.call("on_workdir_change", str(path))

    def get_full_message_thread(self) -> list[Message]:
        """Every message of the conversation across compactions (older sessions first)."""
        self._check()
        return [m.model_copy(deep=True) for m in self._agent().full_thread()]

    # -- permissions (004 §5) ------------------------------------------------------------------
    # req: SX6
    def get_permission_mode(self) -> PermissionMode:
        self._check()
        return self._agent().policy.mode

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """The mode for the rest of the session (a settings reload keeps it)."""
        self._check()
        from wave_tui.sdk.options import PERMISSION_MODES

        if mode not in PERMISSION_MODES:
            raise ValueError(f"mode must be one of {', '.join(PERMISSION_MODES)} (got {mode!r})")
        self._agent().set_permission_mode(mode)
        self._callbacks.call("on_permission_mode_change", mode)

    async def check_permission(self, tool_name: str, args: dict[str, object]) -> PermissionCheck:
        """What the rules and the mode say of this call now; nothing runs, nobody is asked."""
        self._check()
        decision = self._agent().policy.decide(tool_name, dict(args))
        return PermissionCheck(decision.behavior, decision.reason)

    async def add_permission_rule(self, rule: str) -> None:
        """Allow what `rule` names (`"Bash(npm *)"`, `"Read"`) for the rest of the session;
        ValueError for a rule that does not parse."""
        self._check()
        parsed = PermissionRule.parse(rule) if isinstance(rule, str) else None
        if parsed is None:
            raise ValueError(f"not a permission rule: {rule!r} (e.g. 'Bash(npm *)', 'Read')")
        self._agent().policy.rules.grant([parsed])

    def get_available_tool_names(self) -> list[str]:
        """The tools the next request offers the model (built-in, custom, MCP)."""
        self._check()
        return [t.name for t in self._agent().all_tools()]
