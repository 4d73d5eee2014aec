"""One place that builds the work-spanning features for a session, for the integrator to plug in.

    features = build_task_features(paths, lambda: service.session_id, lambda: service.messages,
                                   TaskBindings(asker=..., plan_controller=..., answer=..., runner=...),
                                   service.background)
    service.add_extension(features, ToolProvider, SessionObserver, RunningWork)
    service.add_extension(features.reminder, ContextSource)
    service.add_extension(features.notifier, ContextSource, SessionObserver)
    for cmd in features.commands: registry.register(cmd)

The background runner is the session's own (the one its Bash starts `run_in_background`
commands in): BashOutput, TaskStop, /tasks and the notices read the same one.

`wave -p` passes no asker and no plan controller: those tools then refuse and say why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field

from wave_tui.agent.commands import Command
from wave_tui.config.paths import WavePaths
from wave_tui.config.records import record
from wave_tui.features.commands.markdown_files import ExtraRoot
from wave_tui.features.subagents.definitions import (
    SubagentCatalog,
    SubagentDefinition,
    load_subagents,
)
from wave_tui.features.subagents.tool import AgentTool, SubagentRunner
from wave_tui.features.tasks.background_notices import BackgroundNotifier
from wave_tui.features.tasks.commands import agents_command, tasks_command
from wave_tui.features.tasks.reminder import TaskReminderSource
from wave_tui.llm.types import Message
from wave_tui.net.web_pages import WebFetcher
from wave_tui.tools.ask_user import Asker, AskUserQuestionTool
from wave_tui.tools.background import BackgroundManager, BashOutputTool, TaskStopTool
from wave_tui.tools.base import Tool
from wave_tui.tools.plan_mode import EnterPlanModeTool, ExitPlanModeTool, PlanModeController
from wave_tui.tools.task_output import TaskOutputTool
from wave_tui.tools.tasks.store import TaskStore, default_list_id
from wave_tui.tools.tasks.tools import task_tools
from wave_tui.tools.web_fetch import Answer, WebFetchTool


def _never() -> bool:
    return False


@record(frozen=False)
class TaskBindings:
    """What the host supplies; None leaves the matching tool refusing (asker, plan controller)
    or not offered at all (answer → WebFetch, runner → Agent)."""

    asker: Asker | None = None
    plan_controller: PlanModeController | None = None
    answer: Answer | None = None
    runner: SubagentRunner | None = None
    aborting: Callable[[], bool] = _never


@record(frozen=False)
class TaskFeatures:
    store: TaskStore
    background: BackgroundManager
    catalog: SubagentCatalog
    reminder: TaskReminderSource
    notifier: BackgroundNotifier
    fetcher: WebFetcher | None
    commands: list[Command]
    _tools: list[Tool] = field(default_factory=list)
    # The enabled plugins' agent folders (the plugins feature keeps it current): /agents lists
    # what the Agent tool offers.
    agent_roots: list[ExtraRoot] = field(default_factory=list)

    def tools(self) -> Sequence[Tool]:
        """`ToolProvider`: task, background, question, plan, web and Agent tools (not Bash)."""
        return self._tools

    def on_settings(self, settings: object) -> None:
        return None

    def on_messages_restored(self, messages: list[Message]) -> None:
        return None

    # req: CV11
    def running_work(self) -> list[str]:
        """Background commands still running, for a compaction's restoration."""
        return [
            f"{task.label} (task {task.id}; its output: {task.output_file}, or BashOutput)"
            for task in self.background.tasks()
            if task.status == "running"
        ]

    async def aclose(self) -> None:
        """`SessionObserver`: end background commands, close the web client."""
        await self.background.aclose()
        if self.fetcher is not None:
            await self.fetcher.aclose()


def build_task_features(
    paths: WavePaths,
    session_id: Callable[[], str],
    messages: Callable[[], Sequence[Message]],
    bindings: TaskBindings,
    background: BackgroundManager | None = None,
    extra_agents: Sequence[SubagentDefinition] = (),
) -> TaskFeatures:
    """Blocking (reads `.wave/agents/*.md`): call at session construction, not in a coroutine."""
    store = TaskStore(paths, default_list_id(session_id()))
    background = background or BackgroundManager(paths.background_dir)
    catalog = load_subagents(paths, extra_agents)
    agent_roots: list[ExtraRoot] = []
    fetcher = WebFetcher() if bindings.answer is not None else None
    tools: list[Tool] = [
        *task_tools(store),
        BashOutputTool(background),
        TaskOutputTool(background),
        TaskStopTool(background),
        AskUserQuestionTool(bindings.asker),
        EnterPlanModeTool(bindings.plan_controller),
        ExitPlanModeTool(bindings.plan_controller, lambda: paths.plan_file(session_id())),
    ]
    if fetcher is not None and bindings.answer is not None:
        tools.append(WebFetchTool(fetcher, bindings.answer))
    if bindings.runner is not None:
        tools.append(AgentTool(catalog, bindings.runner, background=background))
    return TaskFeatures(
        store=store,
        background=background,
        catalog=catalog,
        reminder=TaskReminderSource(store, messages),
        notifier=BackgroundNotifier(background, bindings.aborting),
        fetcher=fetcher,
        commands=[
            tasks_command(store, background, session_id),
            agents_command(lambda: load_subagents(paths, extra_agents, agent_roots)),
        ],
        _tools=tools,
        agent_roots=agent_roots,
    )
