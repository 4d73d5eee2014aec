"""`/init` (MX1) and `/context` (MX2) as registered commands, run against a real service."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.memory.prompt_sections import forbidden_save_terms
from tests.model_server import ModelServer, text, tool_call
from wave_tui.agent.commands import CommandOutput, CommandRegistry, PromptExpansion
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.features.memory.commands import memory_commands
from wave_tui.features.memory.context_report import build_context_report
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.memory.prompts import render_init_prompt
from wave_tui.session.factory import create_service


@pytest.fixture
async def service(model_server: ModelServer, project: Path):
    env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model"}
    made = create_service(AgentOptions(workdir=project, environ=env, permission_mode="acceptEdits"))
    made.start()
    yield made
    await made.destroy()


def registry(service: AgentService) -> CommandRegistry:
    commands = CommandRegistry()
    for command in memory_commands(service):
        commands.register(command)
    return commands


@pytest.mark.req("MX1")
async def test_mx1_init_writes_agents_md_through_a_normal_turn(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    expansion = await registry(service).dispatch("/init focus on tests")
    assert isinstance(expansion, PromptExpansion)
    assert "There is no AGENTS.md yet" in expansion.prompt
    assert str(project / "AGENTS.md") in expansion.prompt and "focus on tests" in expansion.prompt
    model_server.enqueue(
        tool_call("Read", {"file_path": "pyproject.toml"}),
        tool_call("Write", {"file_path": "AGENTS.md", "content": "- Test: `pytest -q`\n"}),
        text("Wrote AGENTS.md."),
        when=is_main,
    )
    model_server.enqueue(text("nothing"), when=is_fork)
    result = await service.run_turn(expansion.prompt)
    await service.destroy()
    assert result.status == "completed"
    assert (project / "AGENTS.md").read_text() == "- Test: `pytest -q`\n"
    first = next(r for r in model_server.requests if is_main(r.body))
    assert "Study this repository" in first.body["messages"][-1]["content"]


@pytest.mark.req("MX1")
async def test_mx1_init_on_an_existing_file_asks_to_keep_what_people_wrote(
    service: AgentService, project: Path
) -> None:
    (project / "CLAUDE.md").write_text("- Never push to main.\n")
    expansion = await registry(service).dispatch("/init")
    await service.destroy()
    assert isinstance(expansion, PromptExpansion)
    assert f"`{project / 'CLAUDE.md'}` already exists and people wrote it" in expansion.prompt
    assert "keep every other line exactly as written" in expansion.prompt
    assert "Never delete or rewrite a person's instruction silently" in expansion.prompt


@pytest.mark.req("MX1")
def test_mx1_init_prompt_follows_the_what_not_to_save_rules(tmp_path: Path) -> None:
    prompt = render_init_prompt(tmp_path / "AGENTS.md", None)
    assert "## What NOT to save in memory" in prompt
    save_part = prompt.split("## What AGENTS.md should hold")[1].split("## What NOT")[0]
    assert forbidden_save_terms(save_part) == []


@pytest.mark.req("MX2")
async def test_mx2_context_after_a_turn_counts_rules_nested_and_cache_hits(
    service: AgentService, model_server: ModelServer, project: Path
) -> None:
    (project / ".wave/rules").mkdir(parents=True)
    (project / ".wave/rules/api.md").write_text("---\npaths: src/**\n---\nAPI rule body.\n")
    (project / "src").mkdir()
    (project / "src/AGENTS.md").write_text("- src notes\n")
    (project / "src/a.py").write_text("x = 1\n")
    model_server.enqueue(
        tool_call("Read", {"file_path": "src/a.py"}), text("read"), text("again"), when=is_main
    )
    model_server.enqueue(text("nothing"), text("nothing"), when=is_fork)
    await service.run_turn("read src/a.py")
    await service.run_turn("and again")
    await service.extensions.of_type(ExtractionHook).wait()
    output = await registry(service).dispatch("/context")
    report = build_context_report(service)
    await service.destroy()
    assert isinstance(output, CommandOutput) and "Next request:" in output.text
    kinds = {(s.kind, s.name) for s in report.sources}
    assert ("rule", "api.md") in kinds
    assert ("nested", str(project / "src/AGENTS.md")) in kinds
    assert report.estimated is False and report.total_tokens > 0
    assert report.main_cache_hit is not None and report.main_cache_hit > 0
    assert report.fork_cache_hit is not None
    assert "Cache hits: last main request" in output.text
