"""The bundle the integrator plugs in: tools offered per binding, and one close for everything."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from wave_tui.agent.extensions import ContextSource, SessionObserver, ToolProvider
from wave_tui.config.paths import WavePaths
from wave_tui.features.subagents.definitions import SubagentDefinition
from wave_tui.features.tasks.parts import TaskBindings, build_task_features
from wave_tui.files.read_state import ReadState
from wave_tui.llm.types import Message
from wave_tui.tools.base import ToolContext
from wave_tui.tools.bash import BashTool

_BASE = {
    "TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "BashOutput", "TaskOutput", "TaskStop",
    "AskUserQuestion", "EnterPlanMode", "ExitPlanMode",
}  # fmt: skip


class _Runner:
    async def run(self, definition: SubagentDefinition, prompt: str, description: str) -> str:
        return "done"


async def _answer(prompt: str, markdown: str) -> str:
    return "answer"


async def test_headless_bundle_offers_no_web_or_agent_and_implements_the_protocols(
    project: Path,
) -> None:
    messages: list[Message] = []
    features = build_task_features(
        WavePaths.for_workdir(project), lambda: "sess", lambda: messages, TaskBindings()
    )
    assert {t.name for t in features.tools()} == _BASE
    assert isinstance(features, ToolProvider) and isinstance(features, SessionObserver)
    assert isinstance(features.reminder, ContextSource)
    assert isinstance(features.notifier, ContextSource)
    assert [c.name for c in features.commands] == ["tasks", "agents"]
    await features.aclose()


@pytest.mark.req("BG4")
async def test_bg4_full_bundle_background_command_notified_then_closed(project: Path) -> None:
    messages: list[Message] = []
    features = build_task_features(
        WavePaths.for_workdir(project),
        lambda: "sess",
        lambda: messages,
        TaskBindings(answer=_answer, runner=_Runner()),
    )
    names: Sequence[str] = [t.name for t in features.tools()]
    assert set(names) == _BASE | {"WebFetch", "Agent"}
    ctx = ToolContext(workdir=project, read_state=ReadState(), env=dict(os.environ))
    quick = await BashTool(features.background).run(
        {"command": "echo hi", "run_in_background": True}, ctx
    )
    slow = await BashTool(features.background).run(
        {"command": "sleep 300", "run_in_background": True}, ctx
    )
    quick_id = re.search(r"task id (\S+)", quick.content).group(1)  # type: ignore[union-attr]
    slow_id = re.search(r"task id (\S+)", slow.content).group(1)  # type: ignore[union-attr]
    await features.background.wait(quick_id)
    (note,) = features.notifier.before_request()
    assert quick_id in note.content and slow_id not in note.content
    await features.aclose()
    slow_task = features.background.get(slow_id)
    assert slow_task is not None and slow_task.status == "killed"
    assert features.notifier.before_request() == []  # killed: never announced
