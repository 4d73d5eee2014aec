"""`bench/peers.py`: wave, its floor and any peer installed here (Codex), one headless turn each
on one fixed-answer server speaking chat completions and the Responses API. In CI no peer is
installed: the run still checks that the server, the harness, wave and the floor agree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.bench.costs import rounds

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = rounds(1)


def test_bench_wave_against_the_peers_on_one_server(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "peers.py"), str(ROUNDS)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    print(done.stdout)
    lines = done.stdout.splitlines()
    assert lines[0] == f"one headless turn, median of {ROUNDS} rounds:"
    names = [line.split()[0] for line in lines[1:]]
    assert names[:2] == ["floor", "wave"]
