"""The JSON schema every built-in tool sends the model, byte for byte (prompt caching).

`tool_schemas.json` holds `json.dumps(spec.parameters)` of every tool as it was before the
schemas were derived from typed argument classes; the derived ones must not differ by a byte,
key order included.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.net.web_pages import WebFetcher
from wave_tui.tools.ask_user import AskUserQuestionTool
from wave_tui.tools.background import BackgroundManager, BashOutputTool, TaskStopTool
from wave_tui.tools.base import Tool, spec_of
from wave_tui.tools.plan_mode import EnterPlanModeTool, ExitPlanModeTool
from wave_tui.tools.registry import builtin_tools
from wave_tui.tools.task_output import TaskOutputTool
from wave_tui.tools.tasks.store import TaskStore
from wave_tui.tools.tasks.tools import task_tools
from wave_tui.tools.web_fetch import WebFetchTool

EXPECTED = Path(__file__).with_name("tool_schemas.json")


async def _no_answer(prompt: str, markdown: str) -> str:
    return ""


@pytest.fixture
async def every_tool(project: Path) -> AsyncIterator[list[Tool]]:
    paths = WavePaths.for_workdir(project)
    fetcher = WebFetcher()
    background = BackgroundManager(paths.background_dir)
    tools: list[Tool] = [
        *builtin_tools(),
        BashOutputTool(background),
        TaskOutputTool(background),
        TaskStopTool(background),
        *task_tools(TaskStore(paths, "schemas")),
        AskUserQuestionTool(None),
        EnterPlanModeTool(None),
        ExitPlanModeTool(None, lambda: project / "plan.md"),
        WebFetchTool(fetcher, _no_answer),
    ]
    yield tools
    await fetcher.aclose()


def _dumped(tools: list[Tool]) -> dict[str, str]:
    return {tool.name: json.dumps(spec_of(tool).parameters) for tool in tools}


def test_every_built_in_schema_is_byte_for_byte_the_recorded_one(every_tool: list[Tool]) -> None:
    expected: dict[str, str] = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert _dumped(every_tool) == expected


def test_the_recording_covers_every_built_in_tool(every_tool: list[Tool]) -> None:
    expected: dict[str, str] = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert sorted(expected) == sorted(tool.name for tool in every_tool)
