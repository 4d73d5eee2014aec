"""Subagent definitions, the Agent tool over an injected runner, /agents and /tasks (AG1, AG2, TK3)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from wave_tui.agent.commands import CommandOutput, CommandRegistry
from wave_tui.config.paths import WavePaths
from wave_tui.features.subagents.definitions import (
    FAST_MODEL,
    MAIN_MODEL,
    SubagentDefinition,
    load_subagents,
    new_agent_id,
    tools_for,
)
from wave_tui.features.subagents.tool import AgentTool
from wave_tui.features.tasks.commands import agents_command, tasks_command
from wave_tui.tools.base import ToolContext
from wave_tui.tools.registry import builtin_tools
from wave_tui.tools.tasks.store import TaskStore


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.req("AG1")
def test_ag1_builtin_types(project: Path) -> None:
    catalog = load_subagents(WavePaths.for_workdir(project))
    assert catalog.names == ["general-purpose", "Explore", "Plan", "Bash"]
    explore, plan = catalog.get("Explore"), catalog.get("Plan")
    assert explore and explore.model == FAST_MODEL and explore.read_only
    assert plan and plan.model == MAIN_MODEL and plan.read_only
    tools = builtin_tools()
    general = catalog.get("general-purpose")
    assert general and {t.name for t in tools_for(general, tools)} == {t.name for t in tools}
    bash = catalog.get("Bash")
    assert bash and [t.name for t in tools_for(bash, tools)] == ["Bash"]
    assert {t.name for t in tools_for(explore, tools)} == {"Read", "Glob", "Grep", "Bash"}


@pytest.mark.req("AG2")
def test_ag2_custom_agents_project_over_user_bad_frontmatter_one_line(
    project: Path, isolated_home: Path
) -> None:
    _write(
        project / ".wave/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\nmodel: fast\n---\nReview it.\n",
    )
    _write(
        isolated_home / ".wave/agents/reviewer.md",
        "---\nname: reviewer\ndescription: user one\n---\nx\n",
    )
    _write(
        isolated_home / ".wave/agents/docs.md",
        "---\nname: docs\ndescription: Writes docs\ntools: [Read, Write]\nmodel: inherit\n---\n",
    )
    _write(project / ".wave/agents/broken.md", "---\nname: [oops\n---\nbody\n")
    _write(project / ".wave/agents/nameless.md", "---\ndescription: d\n---\nbody\n")
    catalog = load_subagents(WavePaths.for_workdir(project))
    reviewer, docs = catalog.get("reviewer"), catalog.get("docs")
    assert reviewer == SubagentDefinition(
        "reviewer",
        "Reviews diffs",
        "Review it.",
        ("Read", "Grep"),
        FAST_MODEL,
        False,
        "project",
        project / ".wave/agents/reviewer.md",
    )
    assert (
        docs
        and docs.tools == ("Read", "Write")
        and docs.model == MAIN_MODEL
        and docs.source == "user"
    )
    assert len(catalog.warnings) == 2
    assert all("\n" not in w for w in catalog.warnings)
    assert any("broken.md" in w and "invalid YAML" in w for w in catalog.warnings)
    assert any("nameless.md" in w and "`name`" in w for w in catalog.warnings)


class _Runner:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []
        self.running = 0
        self.peak = 0
        self.release = asyncio.Event()

    async def run(self, definition: SubagentDefinition, prompt: str, description: str) -> str:
        self.calls.append((definition.name, prompt, description))
        self.running += 1
        self.peak = max(self.peak, self.running)
        await self.release.wait()
        self.running -= 1
        if prompt == "fail":
            raise RuntimeError("model unreachable")
        return f"report for {prompt}"


@pytest.mark.req("AG1")
async def test_ag1_agent_tool_calls_runner_and_bounds_concurrency(
    project: Path, ctx: ToolContext
) -> None:
    runner = _Runner()
    tool = AgentTool(load_subagents(WavePaths.for_workdir(project)), runner, asyncio.Semaphore(2))
    assert "- Explore:" in tool.description
    assert tool.parameters["properties"]["subagent_type"]["enum"][0] == "general-purpose"
    calls = [
        asyncio.create_task(
            tool.run(
                {"description": f"job {i}", "prompt": f"p{i}", "subagent_type": "Explore"}, ctx
            )
        )
        for i in range(5)
    ]
    while len(runner.calls) < 2:
        await asyncio.sleep(0)
    for _ in range(20):
        await asyncio.sleep(0)
    assert runner.running == 2  # the rest wait for a slot
    runner.release.set()
    results = await asyncio.gather(*calls)
    assert runner.peak == 2
    assert [r.content for r in results] == [f"report for p{i}" for i in range(5)]
    assert runner.calls[0] == ("Explore", "p0", "job 0")


@pytest.mark.req("AG1")
async def test_ag1_unknown_type_and_runner_failure_are_tool_errors(
    project: Path, ctx: ToolContext
) -> None:
    runner = _Runner()
    runner.release.set()
    tool = AgentTool(load_subagents(WavePaths.for_workdir(project)), runner)
    unknown = await tool.run({"description": "d", "prompt": "p", "subagent_type": "Nope"}, ctx)
    assert unknown.is_error and "general-purpose" in unknown.content
    failed = await tool.run({"description": "d", "prompt": "fail", "subagent_type": "Plan"}, ctx)
    assert failed.is_error and "model unreachable" in failed.content


@pytest.mark.req("AG1")
async def test_ag1_agent_arguments_come_from_one_typed_definition(
    project: Path, ctx: ToolContext
) -> None:
    """The schema's enum follows the catalog; the checks are the typed definition's."""
    catalog = load_subagents(WavePaths.for_workdir(project))
    runner = _Runner()
    runner.release.set()
    tool = AgentTool(catalog, runner)
    schema = tool.parameters
    assert schema["properties"]["subagent_type"] == {"type": "string", "enum": catalog.names}
    assert schema["required"] == ["description", "prompt", "subagent_type"]
    assert schema["additionalProperties"] is False
    missing = await tool.run({"description": "d", "subagent_type": "Plan"}, ctx)
    assert missing.is_error and missing.content == "Missing required parameter `prompt`."
    wrong = await tool.run({"description": 3, "prompt": "p", "subagent_type": "Plan"}, ctx)
    assert wrong.is_error and "`description` must be a string" in wrong.content


def test_subagent_transcript_path_under_the_session_folder(
    project: Path, isolated_home: Path
) -> None:
    paths = WavePaths.for_workdir(project)
    agent_id = new_agent_id()
    path = paths.subagent_transcript("sess-9", agent_id)
    assert path == paths.project_dir / "sess-9" / "subagents" / f"{agent_id}.jsonl"


@pytest.mark.req("AG1")
async def test_ag1_agents_command_lists_types_and_warnings(project: Path) -> None:
    _write(project / ".wave/agents/bad.md", "no frontmatter")
    paths = WavePaths.for_workdir(project)
    registry = CommandRegistry()
    registry.register(agents_command(lambda: load_subagents(paths)))
    out = await registry.dispatch("/agents")
    assert isinstance(out, CommandOutput)
    assert "Explore (built-in; fast model; Glob, Grep, Read, Bash, LSP, read-only)" in out.text
    assert "general-purpose (built-in; main model; all tools but Agent)" in out.text
    assert "warning:" in out.text and "bad.md" in out.text


@pytest.mark.req("TK3")
async def test_tk3_tasks_command_lists_the_list(project: Path) -> None:
    store = TaskStore(WavePaths.for_workdir(project), "s")
    registry = CommandRegistry()
    registry.register(tasks_command(store))
    empty = await registry.dispatch("/tasks")
    assert isinstance(empty, CommandOutput) and "(no tasks)" in empty.text
    await store.create("Write docs")
    out = await registry.dispatch("/tasks")
    assert isinstance(out, CommandOutput) and "#1 [pending] Write docs" in out.text
