"""Verified citations and path-scoped memories per request, at 1k and 10k memories (MM1, MM3).

Scene: N memories, each citing `src/mK.py:L` and `src/mK.py#fn_L` (N/10 cited files of 10
functions each), 10% of them path-scoped. Printed, per N:
- cold check: the first listing pins every citation (each cited file read once);
- steady check (nothing changed): what a listing, the fork's manifest or a Read pays — one stat
  per cited file, no read (`reads=0` is asserted, not the time);
- the floor of a design without the stat gate: read + hash every cited file each time;
- one cited file edited: only that file is read again;
- the path-scoped memory scan after a tool result (stat per topic file, parse only if changed);
- one load appended to the use-count log.
Run: `pytest tests/bench/test_bench_memory_citations.py -m bench -s`.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from wave_tui.memory.citations import CitationStore
from wave_tui.memory.loads import record_loads
from wave_tui.memory.path_memories import PathMemoryLoader

REPEAT = 7


def _median_ms(fn: Callable[[], object], repeat: int = REPEAT) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def _scene(root: Path, n: int) -> tuple[Path, dict[str, str], list[Path]]:
    src = root / "src"
    src.mkdir(parents=True)
    files = []
    for k in range(max(1, n // 10)):
        lines = [f"def fn_{j}(x):\n    return x + {j}\n\n" for j in range(10)]
        path = src / f"m{k}.py"
        path.write_text("".join(lines))
        files.append(path)
    memory = root / "memory"
    memory.mkdir()
    texts = {}
    for i in range(n):
        k, j = i // 10, i % 10
        scoped = f"paths: pkg{i}/**\n" if i % 10 == 0 else ""
        text = f"---\nname: m{i}\n{scoped}---\nfn_{j} is at src/m{k}.py:{3 * j + 1}; see `src/m{k}.py#fn_{j}`.\n"
        (memory / f"m{i:05d}.md").write_text(text)
        texts[f"auto:m{i:05d}.md"] = text
    return memory, texts, files


@pytest.mark.parametrize("n", [1000, 10_000])
def test_citation_and_path_memory_cost_per_request(tmp_path: Path, n: int) -> None:
    memory, texts, files = _scene(tmp_path, n)
    store = CitationStore(tmp_path / "pins.json", tmp_path)
    started = time.perf_counter()
    store.check(texts)
    cold = (time.perf_counter() - started) * 1e3
    assert store.last_reads == len(files)

    steady = _median_ms(lambda: store.check(texts))
    assert store.last_reads == 0  # the stat gate: nothing changed, nothing read

    def rehash_all() -> None:
        for path in files:
            hashlib.sha256(path.read_bytes()).hexdigest()

    rehash = _median_ms(rehash_all)
    stat_floor = _median_ms(lambda: [os.stat(p) for p in files])

    def edit_one() -> None:
        files[0].write_text(files[0].read_text() + "# edited\n")
        store.check(texts)

    edited = _median_ms(edit_one)
    assert store.last_reads == 1

    one = dict([next(iter(texts.items()))])
    read_one = _median_ms(lambda: store.check(one), repeat=50)  # a Read of one memory file
    newest = dict(list(texts.items())[:200])
    manifest = _median_ms(lambda: store.check(newest))  # the fork's listing: 200 newest

    loader = PathMemoryLoader(tmp_path)
    folders = [(memory, "auto")]
    target = [tmp_path / "src" / "m0.py"]
    loader.on_context(target, folders)  # type: ignore[arg-type]
    scan = _median_ms(lambda: loader.on_context(target, folders))  # type: ignore[arg-type]
    now = datetime.now(UTC)
    log = tmp_path / "loads.log"
    append = _median_ms(lambda: record_loads(log, ["rule:project:a.md"], now), repeat=50)
    print(
        f"\n[{n} memories, {len(files)} cited files] cold check {cold:.1f} ms; "
        f"steady check {steady:.2f} ms (reads=0); re-hash-all floor {rehash:.2f} ms; "
        f"stat floor {stat_floor:.2f} ms; Read of one memory {read_one * 1e3:.0f} us; "
        f"fork listing (200) {manifest:.2f} ms; one file edited {edited:.2f} ms (reads=1); "
        f"path-scoped scan per tool result {scan:.2f} ms; load append {append * 1e3:.0f} us"
    )
