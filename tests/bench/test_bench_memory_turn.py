"""Whole-turn memory overhead with 1,000 rules and the fork's cache efficiency
. Figures: `pytest tests/bench/test_bench_memory_turn.py -m bench --benchmark-enable -s`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.extraction_helpers import is_fork
from tests.model_server import ModelServer
from wave_tui.agent.service import AgentOptions
from wave_tui.config.paths import WavePaths
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.memory.injection import MemoryInjector
from wave_tui.session.factory import create_service
from wave_tui.tools.base import ToolResult


def _rules(project: Path, n: int) -> None:
    rules = project / ".wave" / "rules"
    rules.mkdir(parents=True)
    for i in range(n):
        body = f"---\npaths: pkg{i}/**/*.ts\n---\nRule {i}.\n" if i % 10 else f"Always rule {i}.\n"
        (rules / f"r{i:04d}.md").write_text(body)


def test_bench_memory_overhead_per_turn_with_1000_rules(benchmark, project: Path) -> None:
    """One turn's memory work: rebuild the reminder (rules re-discovered from the mtime cache)
    and match one Read against every conditional rule."""
    _rules(project, 1000)
    (project / "pkg7" / "src").mkdir(parents=True)
    target = project / "pkg7" / "src" / "a.ts"
    target.write_text("x\n")
    injector = MemoryInjector(WavePaths.for_workdir(project))
    injector.reminder_text()  # warm the parse cache, as the first turn of a session does

    def turn() -> None:
        injector.loaded_rule_ids.clear()
        injector.reminder_text()
        injector.on_tool_result(ToolResult("x", context_paths=[target], read_paths=[target]))

    benchmark(turn)


def test_bench_fork_cache_efficiency(benchmark, model_server: ModelServer, project: Path) -> None:
    """Cached tokens of the fork's first request ÷ the prefix it shares with the main request."""
    env = {"WAVE_BASE_URL": model_server.base_url, "WAVE_MODEL": "test-model"}
    ratios: list[float] = []

    def once() -> None:
        model_server.reset()
        service = create_service(AgentOptions(workdir=project, environ=env))
        service.start()

        async def go() -> None:
            await service.run_turn("remember that I like tea")
            hook = service.extensions.of_type(ExtractionHook)
            await hook.wait()
            await service.destroy()

        asyncio.run(go())
        main = model_server.requests[0]
        fork = next(r for r in model_server.requests if is_fork(r.body))
        shared = len(model_server.tokenize(main.body))
        ratios.append(fork.cached_tokens / shared)

    benchmark.pedantic(once, rounds=3, iterations=1)
    benchmark.extra_info["cache_efficiency"] = min(ratios)
    print(f"\nfork cache efficiency: {min(ratios):.4f}")
    assert min(ratios) >= 0.99
