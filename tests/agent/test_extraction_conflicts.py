"""The extraction fork is told of open contradictions before it writes (MM2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extraction_helpers import is_fork, is_main
from tests.model_server import ModelServer, text
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.config.paths import WavePaths
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.catalog_marks import sides_of
from wave_tui.memory.conflicts import Conflict, save_conflicts
from wave_tui.session.factory import create_service


async def _fork_prompt(model_server: ModelServer, project: Path) -> str:
    env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model"}
    service: AgentService = create_service(AgentOptions(workdir=project, environ=env))
    service.start()
    model_server.enqueue(text("ok"), when=is_main)
    model_server.enqueue(text("nothing to save"), when=is_fork)
    await service.run_turn("hello")
    await service.extensions.of_type(ExtractionHook).wait()
    await service.destroy()
    fork = next(r.body for r in model_server.requests if is_fork(r.body))
    return str(fork["messages"][-1]["content"])


@pytest.mark.req("MM2")
async def test_the_fork_prompt_names_open_contradictions_and_drops_resolved_ones(
    model_server: ModelServer, project: Path
) -> None:
    agents = project / "AGENTS.md"
    agents.write_text("- Install with pnpm\n- Install with npm\n")
    paths = WavePaths.for_workdir(project)
    a, b = sides_of(build_catalog(paths))
    save_conflicts(paths.conflicts_file, [Conflict(a, b, "pnpm versus npm")])
    prompt = await _fork_prompt(model_server, project)
    assert "## Open contradictions" in prompt
    assert "- project:AGENTS.md#1 vs project:AGENTS.md#2: pnpm versus npm" in prompt

    agents.write_text("- Install with pnpm\n- Install with pnpm, always\n")  # resolved
    model_server.requests.clear()
    assert "Open contradictions" not in await _fork_prompt(model_server, project)
