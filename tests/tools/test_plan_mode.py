"""Plan mode tools with a recording controller (PL1–PL3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.config.settings import PermissionMode
from wave_tui.tools.base import ToolContext
from wave_tui.tools.plan_mode import EnterPlanModeTool, ExitPlanModeTool, PlanDecision


class _Controller:
    def __init__(self, decision: PlanDecision) -> None:
        self.mode: PermissionMode = "default"
        self.decision = decision
        self.shown: list[tuple[str, Path]] = []

    def permission_mode(self) -> PermissionMode:
        return self.mode

    def set_permission_mode(self, mode: PermissionMode) -> None:
        self.mode = mode

    async def approve_plan(self, plan: str, plan_file: Path) -> PlanDecision:
        self.shown.append((plan, plan_file))
        return self.decision


@pytest.mark.req("PL1", "PL2")
@pytest.mark.parametrize(
    ("decision", "mode_after"),
    [("approve_accept_edits", "acceptEdits"), ("approve", "default"), ("keep_planning", "plan")],
)
async def test_pl1_pl2_enter_sets_plan_mode_exit_writes_plan_and_asks(
    ctx: ToolContext, isolated_home: Path, decision: PlanDecision, mode_after: str
) -> None:
    controller = _Controller(decision)
    paths = WavePaths.for_workdir(ctx.workdir)
    enter = EnterPlanModeTool(controller)
    exit_ = ExitPlanModeTool(controller, lambda: paths.plan_file("sess-1"))
    early = await exit_.run({"plan": "x"}, ctx)
    assert early.is_error and "EnterPlanMode" in early.content
    entered = await enter.run({}, ctx)
    assert not entered.is_error and controller.mode == "plan"
    result = await exit_.run({"plan": "# Plan\n1. do it"}, ctx)
    plan_file = isolated_home / ".wave" / "plans" / "sess-1.md"
    assert plan_file.read_text() == "# Plan\n1. do it\n"
    assert controller.shown == [("# Plan\n1. do it", plan_file)]
    assert controller.mode == mode_after
    assert ("Stay in plan mode" in result.content) == (decision == "keep_planning")


@pytest.mark.req("PL3")
async def test_pl3_refused_without_a_controller(ctx: ToolContext, isolated_home: Path) -> None:
    enter = await EnterPlanModeTool(None).run({}, ctx)
    exit_ = await ExitPlanModeTool(None, lambda: isolated_home / "p.md").run({"plan": "x"}, ctx)
    assert enter.is_error and exit_.is_error
    assert "wave -p" in enter.content
    assert not (isolated_home / "p.md").exists()
