"""The duplicate checks with 50 memories of 50 KB each (SP8): the note after one memory write
(`duplicate_note`, what the write hook runs) and consolidation's `duplicate_groups`.

Before the bounded similarity a single write among a few 35 KB topic files spent minutes in
`difflib`'s quadratic ratio; now each check reads the memories and compares shingles once.
Printed: the median of each, over `WAVE_BENCH_ROUNDS` rounds (default 3).
Run: `pytest tests/bench/test_bench_duplicates.py -m bench -s`.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tests.memory.big_memories import edited, topic, write_topics
from wave_tui.config.paths import WavePaths
from wave_tui.memory.catalog import build_catalog
from wave_tui.memory.consolidation import duplicate_groups
from wave_tui.memory.duplicates import duplicate_note
from wave_tui.memory.rules import RuleSet

COUNT, SIZE = 50, 50_000
ROUNDS = int(os.environ.get("WAVE_BENCH_ROUNDS", "3"))


def _median_s(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def test_bench_duplicate_checks_at_fifty_memories_of_fifty_kb(
    project: Path, isolated_home: Path
) -> None:
    paths = WavePaths(project_root=project.resolve(), home=isolated_home.resolve())
    write_topics(paths.memory_dir, COUNT, SIZE)
    new = paths.memory_dir / "new.md"
    new.write_text(edited(topic(17, SIZE)), encoding="utf-8")

    note = duplicate_note(new, paths)
    assert note is not None and "auto:topic17.md" in note
    groups = duplicate_groups(build_catalog(paths, rules=RuleSet([], paths.project_root)))
    assert len(groups) == 1

    write_s = _median_s(lambda: duplicate_note(new, paths))
    consolidate_s = _median_s(
        lambda: duplicate_groups(build_catalog(paths, rules=RuleSet([], paths.project_root)))
    )
    print(
        f"\nduplicates, {COUNT} memories of {SIZE // 1000} KB: note after a write "
        f"{write_s * 1e3:.0f} ms, consolidation's groups {consolidate_s * 1e3:.0f} ms"
    )
