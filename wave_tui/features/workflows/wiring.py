"""Workflows plugged into a service: the Workflow tool, `/workflows`, the notifications of
background runs, each run's agents started by the session's subagent runner (so every agent
goes through the parent's permission pipeline, hooks and locks)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from wave_tui.agent.extensions import ContextSource, SessionObserver, ToolProvider
from wave_tui.agent.service import AgentService
from wave_tui.config.trust import TrustMode, TrustStore
from wave_tui.features.plugins.active import ActivePlugins
from wave_tui.features.subagents.definitions import SubagentCatalog, load_subagents
from wave_tui.features.subagents.runner import SubagentLoopRunner
from wave_tui.features.subagents.tool import AgentTool
from wave_tui.features.workflows.command import workflows_command
from wave_tui.features.workflows.deep_research import deep_research
from wave_tui.features.workflows.discovery import WorkflowDef, discover
from wave_tui.features.workflows.feature import WorkflowsFeature
from wave_tui.features.workflows.runs import WorkflowRuns
from wave_tui.features.workflows.tool import WorkflowTool
from wave_tui.permissions.rules import PermissionRule
from wave_tui.tools.base import ToolError

PLUGIN_WORKFLOWS_DIR = "workflows"


class ServiceAgents:
    """An `AgentStarter` over the session's subagent runner and its catalog of types."""

    def __init__(self, service: AgentService) -> None:
        self._service = service
        self._runner = SubagentLoopRunner(service)

    def _catalog(self) -> SubagentCatalog:
        for tool in self._service.all_tools():
            if isinstance(tool, AgentTool):
                return tool.catalog  # the types the Agent tool offers, plugins' included
        return load_subagents(self._service.paths)

    async def __call__(
        self,
        subagent_type: str,
        prompt: str,
        description: str,
        on_tokens: Callable[[int], None],
        grants: Sequence[PermissionRule],
    ) -> str:
        catalog = self._catalog()
        definition = catalog.get(subagent_type)
        if definition is None:
            raise ToolError(
                f"unknown subagent_type {subagent_type!r}; available: {', '.join(catalog.names)}"
            )
        return await self._runner.run(
            definition, prompt, description, on_tokens=on_tokens, grants=grants
        )


def _discoverer(
    service: AgentService, plugins: ActivePlugins | None
) -> Callable[[], list[WorkflowDef]]:
    def find() -> list[WorkflowDef]:
        dirs: list[tuple[str, Path]] = []
        if plugins is not None:
            dirs = [
                (a.plugin.name, a.plugin.root / PLUGIN_WORKFLOWS_DIR) for a in plugins.plugins()
            ]
        return discover(service.paths, dirs, [deep_research()])

    return find


# req: WK1
def install_workflows(service: AgentService, plugins: ActivePlugins | None) -> WorkflowsFeature:
    """Blocking (reads the workflow folders once for the tool's description): call it at
    construction. `plugins` None (`--bare`): only the user's workflows."""
    mode: TrustMode = "invoker" if service.options.headless else "ask"
    runs = WorkflowRuns(lambda run_id: service.paths.workflow_run(service.session_id, run_id))
    find = _discoverer(service, plugins)
    feature = WorkflowsFeature(
        discover=find,
        runs=runs,
        start_agent=ServiceAgents(service),
        settings=lambda: service.settings,
        trust=TrustStore(service.paths.trust_file, mode),
        project_root=service.paths.project_root,
        publish=service.publish,
        wake=None if service.options.headless else service.turns.wake,
        aborting=lambda: service.aborting,
        ask=service.permission_asker,
        mode=lambda: service.policy.mode,
    )
    feature.known = find()
    feature.offer(WorkflowTool(feature))
    service.add_extension(feature, ContextSource, ToolProvider, SessionObserver)
    service.commands.register(workflows_command(runs))
    return feature


def workflows_of(service: AgentService) -> WorkflowsFeature | None:
    return service.extensions.of_type(WorkflowsFeature)
