"""Workflows in a session: finding a workflow (and its trust), starting a run in the foreground
or the background, stopping one, and announcing finished background runs before the next
request (a `ToolProvider`, `ContextSource` and `SessionObserver`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wave_tui.agent import events as ev
from wave_tui.config.settings import EffectiveSettings
from wave_tui.config.trust import NOT_TRUSTED_YET, TrustRequested, TrustStore
from wave_tui.features.workflows.discovery import NEEDS_TRUST, WorkflowDef, trust_items
from wave_tui.features.workflows.notices import run_summary, workflow_notification
from wave_tui.features.workflows.runs import WorkflowRun, WorkflowRuns
from wave_tui.llm.types import Message
from wave_tui.permissions.policy import Ask, PermissionAnswer, PermissionMode
from wave_tui.permissions.rules import PermissionRule
from wave_tui.permissions.tool_table import WORKFLOW
from wave_tui.tools.base import Tool, ToolError

if TYPE_CHECKING:
    from wave_tui.features.workflows.engine import AgentStarter, RunDriver


class WorkflowNotFound(ToolError):
    pass


class WorkflowsFeature:
    def __init__(
        self,
        *,
        discover: Callable[[], list[WorkflowDef]],
        runs: WorkflowRuns,
        start_agent: AgentStarter,
        settings: Callable[[], EffectiveSettings],
        trust: TrustStore,
        project_root: Path,
        publish: Callable[[ev.AgentEvent], None],
        wake: Callable[[], None] | None,
        aborting: Callable[[], bool],
        ask: Callable[[], Ask | None],
        mode: Callable[[], PermissionMode],
    ) -> None:
        self._ask = ask  # who answers a permission question now (None: nobody)
        self._mode = mode
        self._discover = discover  # blocking: run in a thread
        self.runs = runs
        self._start_agent = start_agent
        self._settings = settings
        self._trust = trust
        self._project_root = project_root
        self._publish = publish
        self._wake = wake
        self._aborting = aborting
        self._finished: list[WorkflowRun] = []  # background runs not yet announced
        self._trust_needed: TrustRequested | None = None
        self.known: list[WorkflowDef] = []
        self._tools: list[Tool] = []

    def offer(self, tool: Tool) -> None:
        self._tools = [tool]

    # -- discovery and trust -------------------------------------------------------------------
    async def refresh(self) -> list[WorkflowDef]:
        self.known = await asyncio.to_thread(self._discover)
        return self.known

    def trust_needed(self) -> TrustRequested | None:
        """The project's and plugins' workflow scripts waiting for the user's trust."""
        self._trust_needed = self._trust.request(
            self._project_root, "workflows", trust_items(self.known)
        )
        return self._trust_needed

    async def grant_trust(self, request: TrustRequested) -> None:
        await asyncio.to_thread(self._trust.record, request)
        self._trust_needed = None

    # req: WK1
    async def find(self, name: str) -> WorkflowDef:
        known = await self.refresh()
        workflow = next((w for w in known if w.name == name), None)
        if workflow is None:
            names = ", ".join(w.name for w in known) or "none"
            raise WorkflowNotFound(f"No workflow named {name!r} (available: {names}).")
        if workflow.scope in NEEDS_TRUST:
            trusted = await asyncio.to_thread(
                self._trust.is_trusted, self._project_root, "workflows", trust_items(known)
            )
            if not trusted:
                raise ToolError(
                    f"Workflow {name!r} comes from the {workflow.scope} and is {NOT_TRUSTED_YET}: "
                    "the user must trust the project's workflows before it runs."
                )
        return workflow

    # req: WK4
    async def run_grants(self, workflow: WorkflowDef) -> tuple[PermissionRule, ...]:
        """The tools the workflow names (`// permissions:`), asked of the user once for the
        whole run: allowed, its agents use them unasked; refused (or nobody to ask), each of
        their calls is asked or refused as always."""
        ask = self._ask()
        if not workflow.permissions or ask is None or self._mode() == "bypassPermissions":
            return ()
        tools = ", ".join(workflow.permissions)
        reply = await ask(
            WORKFLOW,
            {"name": workflow.name, "tools": tools},
            f"the workflow {workflow.name} lets its agents use {tools} for this run",
        )
        choice = reply.choice if isinstance(reply, PermissionAnswer) else reply
        if choice == "deny":
            return ()
        return tuple(PermissionRule(tool, None) for tool in workflow.permissions)

    # -- runs ----------------------------------------------------------------------------------
    def start(
        self,
        workflow: WorkflowDef,
        args: Any,
        background: bool,
        grants: tuple[PermissionRule, ...] = (),
    ) -> WorkflowRun:
        run = self.runs.new(workflow.name, args, background)
        budget = self._settings().workflows
        # The engine (and QuickJS) load with the first run, never with the session.
        from wave_tui.features.workflows.engine import RunDriver

        driver = RunDriver(run, self.runs, self._start_agent, budget, grants)
        task = asyncio.get_running_loop().create_task(self._drive(driver, workflow))
        self.runs.attach(run, task)
        self.runs.changed(run)
        return run

    async def _drive(self, driver: RunDriver, workflow: WorkflowDef) -> None:
        run = driver.run
        try:
            await driver.execute(workflow)
        except Exception as exc:  # a bug of ours ends the run as failed, never silently
            run.status, run.error = "failed", f"{type(exc).__name__}: {exc}"
            self.runs.changed(run)
        if run.background and run.status in ("completed", "failed"):
            await self.runs.flushed(run.id)  # the notification's output file holds the end
            self._announce(run)

    # req: WK3
    def _announce(self, run: WorkflowRun) -> None:
        self._finished.append(run)
        self._publish(ev.Notice("background", f"{run_summary(run)} · {run.id}"))
        if self._wake is not None:
            self._wake()

    # -- ToolProvider, ContextSource, SessionObserver ------------------------------------------
    def tools(self) -> Sequence[Tool]:
        return self._tools

    def system_sections(self, settings: EffectiveSettings) -> list[str]:
        return []

    def prepend_reminder(self) -> str | None:
        return None

    # req: WK3
    def before_request(self) -> list[Message]:
        if self._aborting() or not self._finished:
            return []  # an aborted turn leaves them for the next request
        done, self._finished = self._finished, []
        return [workflow_notification(done)]

    def on_settings(self, settings: EffectiveSettings) -> None:
        return None

    def on_messages_restored(self, messages: list[Message]) -> None:
        return None  # /clear, resume: pending notifications stay queued

    async def aclose(self) -> None:
        await self.runs.aclose()
