"""Rule discovery and matching stay fast at scale (R1, R3, X1). Run with -m bench --benchmark-enable."""

from __future__ import annotations

from pathlib import Path

import pytest

from wave_tui.config.paths import WavePaths
from wave_tui.memory.rules import RuleCache, discover_rules

pytestmark = [pytest.mark.bench, pytest.mark.req("R1", "R3", "X1")]


def _make_rules(root: Path, count: int, conditional: bool) -> None:
    for n in range(count):
        folder = root / f"group{n % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        head = f"---\npaths:\n  - src/mod{n}/**/*.ts\n  - 'lib/{{a,b}}/m{n}.py'\npriority: {n % 7}\n---\n"
        (folder / f"rule{n}.md").write_text((head if conditional else "") + f"Rule {n}.\n")


def test_bench_discover_and_parse_5000_rules(project: Path, benchmark) -> None:
    paths = WavePaths.for_workdir(project)
    _make_rules(project / ".wave" / "rules", 5000, conditional=True)

    def cold() -> int:
        return len(discover_rules(paths, lambda _m: None, RuleCache()).active)

    assert benchmark(cold) == 5000


def test_bench_rediscover_5000_rules_with_cache(project: Path, benchmark) -> None:
    paths = WavePaths.for_workdir(project)
    _make_rules(project / ".wave" / "rules", 5000, conditional=True)
    cache = RuleCache()
    discover_rules(paths, lambda _m: None, cache)
    result = benchmark(lambda: discover_rules(paths, lambda _m: None, cache))
    assert len(result.active) == 5000


def test_bench_match_one_path_against_1000_conditional_rules(project: Path, benchmark) -> None:
    paths = WavePaths.for_workdir(project)
    _make_rules(project / ".wave" / "rules", 1000, conditional=True)
    rules = discover_rules(paths, lambda _m: None)
    hit = project / "src" / "mod500" / "deep" / "x.ts"
    miss = project / "docs" / "readme.md"
    rules.match(hit)  # compile once, as a session does

    def both() -> tuple[int, int]:
        return len(rules.match(hit)), len(rules.match(miss))

    assert benchmark(both) == (1, 0)
