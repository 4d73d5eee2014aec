"""EnterPlanMode / ExitPlanMode: plan before changing anything (PL1–PL3).

The app injects a `PlanModeController` that sets the permission mode (plan mode makes the
permission policy refuse every change) and shows the plan for approval. `wave -p` has no
controller, and both tools refuse.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from wave_tui.config.fileio import atomic_write_text
from wave_tui.config.settings import PermissionMode
from wave_tui.tools.arguments import Arg, NoArgs, TypedTool, tool_arguments
from wave_tui.tools.base import ToolContext, ToolError, ToolResult

PlanDecision = Literal["approve_accept_edits", "approve", "keep_planning"]

NO_CONTROLLER = (
    "Plan mode is not available in a non-interactive run (wave -p): nobody can approve a plan. "
    "Carry on within the permissions you have."
)

ENTER_DESCRIPTION = """\
Enter plan mode before a non-trivial change whose approach the user should agree on first. In \
plan mode you explore and read only: every change (Write, Edit, non-read-only Bash) is refused. \
When the plan is ready, present it with ExitPlanMode."""

EXIT_DESCRIPTION = """\
Leave plan mode by presenting your plan for the user's approval. `plan` is the complete plan in \
Markdown: the steps, the files to change, how it will be verified. The user approves it (you \
may then make changes) or asks you to keep planning."""

ENTERED = (
    "Plan mode is on. Explore the code and design the approach; do not change anything (changes "
    "are refused). When the plan is ready, call ExitPlanMode with it."
)


class PlanModeController(Protocol):
    def permission_mode(self) -> PermissionMode: ...

    def set_permission_mode(self, mode: PermissionMode) -> None: ...

    async def approve_plan(self, plan: str, plan_file: Path) -> PlanDecision:
        """Show the plan (a dialog with three choices) and return the user's decision."""
        ...


class EnterPlanModeTool(TypedTool[NoArgs]):
    name = "EnterPlanMode"
    description = ENTER_DESCRIPTION
    read_only = True
    arguments = NoArgs

    def __init__(self, controller: PlanModeController | None) -> None:
        self.controller = controller

    # req: PL3
    # req: PL1
    async def call(self, args: NoArgs, ctx: ToolContext) -> ToolResult:
        if self.controller is None:
            return ToolResult(content=NO_CONTROLLER, is_error=True, summary="No plan mode in -p")
        if self.controller.permission_mode() == "plan":
            return ToolResult(content="Plan mode is already on. " + ENTERED, summary="Plan mode")
        self.controller.set_permission_mode("plan")
        return ToolResult(content=ENTERED, summary="Entered plan mode")


@tool_arguments
class ExitPlanModeArgs:
    plan: Annotated[str, Arg("The plan, in Markdown.")]


class ExitPlanModeTool(TypedTool[ExitPlanModeArgs]):
    name = "ExitPlanMode"
    description = EXIT_DESCRIPTION
    read_only = True  # writes only its own plan file under ~/.wave/plans
    arguments = ExitPlanModeArgs

    def __init__(
        self, controller: PlanModeController | None, plan_file: Callable[[], Path]
    ) -> None:
        """`plan_file` gives the current session's plan path (`WavePaths.plan_file(session_id)`)."""
        self.controller = controller
        self.plan_file = plan_file

    async def _run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        # Without a controller there is nothing to check the arguments for.
        if self.controller is None:
            return ToolResult(content=NO_CONTROLLER, is_error=True, summary="No plan mode in -p")
        return await super()._run(args, ctx)

    async def call(self, args: ExitPlanModeArgs, ctx: ToolContext) -> ToolResult:
        assert self.controller is not None  # `_run` answered without one
        plan = args.plan.strip()
        if not plan:
            raise ToolError("plan must not be empty.")
        if self.controller.permission_mode() != "plan":
            raise ToolError(
                "Plan mode is not on; there is no plan to leave. Call EnterPlanMode first."
            )
        # req: PL2
        path = self.plan_file()
        await asyncio.to_thread(atomic_write_text, path, plan + "\n")
        decision = await self.controller.approve_plan(plan, path)
        if decision == "keep_planning":
            return ToolResult(
                content=(
                    f"The user did not approve the plan yet (saved to {path}). Stay in plan mode: "
                    "ask what to change, refine the plan, and present it again with ExitPlanMode."
                ),
                summary="Keep planning",
            )
        mode: PermissionMode = "acceptEdits" if decision == "approve_accept_edits" else "default"
        self.controller.set_permission_mode(mode)
        return ToolResult(
            content=f"The user approved the plan (saved to {path}). Plan mode is off; implement it now.",
            summary="Plan approved" + (", edits auto-accepted" if mode == "acceptEdits" else ""),
        )
