"""Plugs the features whose work spans turns (tasks, plan mode, background commands, questions)
into a service: one call from the factory.

Interactive sessions get an asker and a plan controller that emit `QuestionAsked` and
`PlanApprovalRequested` for the app to resolve; `wave -p` gets neither (the tools refuse and
tell the model, AQ2 and PL3). WebFetch's answer and the Explore subagent use the fast model
(`fast_model`, else the main model) through the service's own client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from wave_tui.agent import events as ev
from wave_tui.agent.extensions import ContextSource, RunningWork, SessionObserver, ToolProvider
from wave_tui.agent.service import AgentService
from wave_tui.agent.session_files import session_chain
from wave_tui.config.settings import EffectiveSettings, PermissionMode, resolve_max_input_tokens
from wave_tui.features.images.vision import vision_agents
from wave_tui.features.subagents.runner import SubagentLoopRunner
from wave_tui.features.tasks.parts import TaskBindings, TaskFeatures, build_task_features
from wave_tui.llm.options import apply_model_options
from wave_tui.llm.types import Message
from wave_tui.tools.ask_user import Question, QuestionAnswer
from wave_tui.tools.plan_mode import PlanDecision
from wave_tui.tools.tasks.store import default_list_id
from wave_tui.tools.web_fetch import answer_request

ANSWER_MAX_TOKENS = 2048


class EventAsker:
    """AskUserQuestion's asker in the app: the dialog answers through the event's future."""

    def __init__(self, service: AgentService) -> None:
        self.service = service

    async def __call__(self, questions: Sequence[Question]) -> Sequence[QuestionAnswer] | None:
        # req: AQ1
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[QuestionAnswer, ...] | None] = loop.create_future()
        self.service.publish(ev.QuestionAsked(tuple(questions), future))
        return await future


class ServicePlanController:
    """Plan mode in the app: the session's permission mode, and the plan dialog as an event."""

    def __init__(self, service: AgentService) -> None:
        self.service = service

    def permission_mode(self) -> PermissionMode:
        return self.service.policy.mode

    def set_permission_mode(self, mode: PermissionMode) -> None:
        # req: PL1
        # The options' mode outlives the settings re-applied at each turn start.
        self.service.options.permission_mode = mode
        self.service.policy.mode = mode
        self.service.notify("mode", f"permission mode: {mode}")

    async def approve_plan(self, plan: str, plan_file: Path) -> PlanDecision:
        # req: PL2
        future: asyncio.Future[PlanDecision] = asyncio.get_running_loop().create_future()
        self.service.publish(ev.PlanApprovalRequested(plan, plan_file, future))
        return await future


class FastModelAnswer:
    """WebFetch's reader (WF2): the fast model answers the prompt over the page."""

    def __init__(self, service: AgentService) -> None:
        self.service = service

    async def __call__(self, prompt: str, markdown: str) -> str:
        service = self.service
        settings = service.settings
        model = settings.fast_model or service.model or ""
        body = apply_model_options(
            {
                "model": model,
                "messages": [{"role": "user", "content": answer_request(prompt, markdown)}],
            },
            settings.model_config_for(model).options,
            max_output_tokens=ANSWER_MAX_TOKENS,
            window_tokens=resolve_max_input_tokens(settings, model),
        )
        reply = await service.client().stream_chat(body)
        return reply.content.strip() or "(the page reader returned no answer)"


class TaskListFollower:
    """A `SessionObserver`: the task list follows the session (the root of its compaction chain,
    so compaction keeps it and /clear or a resume switches it), unless WAVE_TASK_LIST_ID is set."""

    def __init__(self, features: TaskFeatures, service: AgentService) -> None:
        self.features = features
        self.service = service

    def on_settings(self, settings: EffectiveSettings) -> None:
        return None

    # req: TK2
    def on_messages_restored(self, messages: list[Message]) -> None:
        root = session_chain(self.service.paths, self.service.session_id)[0]
        list_id = default_list_id(root, self.service.options.environ)
        if list_id != self.features.store.list_id:
            self.features.store.switch(list_id)

    async def aclose(self) -> None:
        return None


def install_work(service: AgentService) -> TaskFeatures:
    """Tools, task reminder, background notifier, /tasks and /agents into `service`, over the
    service's own background runner. Blocking (reads `.wave/agents/*.md`): call at construction."""
    interactive = not service.options.headless
    runner = SubagentLoopRunner(service)
    bindings = TaskBindings(
        asker=EventAsker(service) if interactive else None,
        plan_controller=ServicePlanController(service) if interactive else None,
        answer=FastModelAnswer(service),
        runner=runner,
        aborting=lambda: service.aborting,
    )
    features = build_task_features(
        service.paths,
        lambda: service.session_id,
        lambda: service.messages,
        bindings,
        service.background,
        vision_agents(service.settings),
    )
    service.add_extension(features, ToolProvider, SessionObserver, RunningWork)
    service.add_extension(features.reminder, ContextSource)
    service.add_extension(features.notifier, ContextSource, SessionObserver)
    follower = TaskListFollower(features, service)
    follower.on_messages_restored([])  # WAVE_TASK_LIST_ID as the service's environment says
    service.add_extension(follower, SessionObserver)
    for command in features.commands:
        service.commands.register(command)  # replaces the placeholders
    features.store.subscribe(lambda tasks: service.publish(ev.TasksChanged(tuple(tasks))))
    # `-p` ends with its turn; an app, SDK or ACP session stays to hear the agent end.
    features.notifier.show_finished(service.publish, service.turns.wake if interactive else None)
    return features
