"""The LSP tool's cost on the fixture project with pylsp: the first call (server start,
initialize, the document opened, the answer) and a warm call on the running server.

    python -m pytest tests/bench/test_bench_lsp.py -m bench -n 0 -s --benchmark-enable

The first call runs in a fresh interpreter (so `lsprotocol`'s import is in it, as in a real
session); printed next to the same process's bare start, never asserted against a clock.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tests.features.lsp.conftest import APP, HELPERS, pylsp_entry
from tests.features.lsp.test_operations import call
from wave_tui.features.lsp.config import parse_servers
from wave_tui.features.lsp.manager import LspManager

pytestmark = pytest.mark.req("LS1")
ROOT = Path(__file__).resolve().parents[2]

FIRST_CALL = """
import asyncio, json, sys, time
from pathlib import Path
t0 = time.perf_counter()
from tests.features.lsp.test_operations import call
from wave_tui.features.lsp.config import parse_servers
from wave_tui.features.lsp.manager import LspManager
root = Path(sys.argv[1])
entry = json.loads(sys.argv[2])

async def main() -> None:
    manager = LspManager(parse_servers({"pylsp": entry}, "bench"), root)
    t1 = time.perf_counter()
    result = await call(manager, root, operation="goToDefinition", filePath="app.py", line=5, character=11)
    t2 = time.perf_counter()
    assert not result.is_error, result.content
    await manager.aclose()
    print(json.dumps({"imports_ms": (t1 - t0) * 1000, "first_call_ms": (t2 - t1) * 1000}))

asyncio.run(main())
"""


@pytest.fixture
def fixture_project(tmp_path: Path) -> Path:
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


def test_bench_lsp_first_call_starts_and_initializes_the_server(fixture_project: Path) -> None:
    runs = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", FIRST_CALL, str(fixture_project), json.dumps(pylsp_entry())],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        runs.append(json.loads(out.stdout))
    first = sorted(r["first_call_ms"] for r in runs)[1]
    print(
        f"\nLSP first call (pylsp start + initialize + didOpen + definition), median of 3: {first:.0f} ms"
    )
    print(
        f"  (the harness's own imports before it: {sorted(r['imports_ms'] for r in runs)[1]:.0f} ms)"
    )


def test_bench_lsp_warm_call(fixture_project: Path, benchmark: BenchmarkFixture) -> None:
    loop = asyncio.new_event_loop()
    manager = LspManager(parse_servers({"pylsp": pylsp_entry()}, "bench"), fixture_project)

    def definition() -> str:
        result = loop.run_until_complete(
            call(
                manager,
                fixture_project,
                operation="goToDefinition",
                filePath="app.py",
                line=5,
                character=11,
            )
        )
        return result.content

    try:
        assert definition() == "helpers.py:4:5: def greet(name: str) -> str:"  # started once
        assert benchmark(definition) == "helpers.py:4:5: def greet(name: str) -> str:"
    finally:
        loop.run_until_complete(manager.aclose())
        loop.close()
