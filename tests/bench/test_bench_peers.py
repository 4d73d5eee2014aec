"""`bench/peers.py`: wave, its floor and any peer installed here (Codex, OpenCode): one headless
turn (on one fixed-answer server speaking chat completions and the Responses API), `--version`
and the TUI's start each. In CI no peer is on PATH: the first run still checks that the server,
the harness, wave and the floor agree; the second installs OpenCode from npm and runs it offline
(`unshare -n`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.bench.costs import rounds
from tests.node_packages import npm_package

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = rounds(1)
OPENCODE = "opencode-ai@1.18.33"


def bench(cwd: Path, **env: str) -> dict[str, list[str]]:
    """Runs the bench; its printed sections, each a list of the names it measured."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "peers.py"), str(ROUNDS)],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    print(done.stdout)
    sections: dict[str, list[str]] = {}
    heading = ""
    for line in done.stdout.splitlines():
        if line.startswith(" "):
            sections[heading].append(line.split()[0])
            if heading.startswith("one headless turn"):
                assert "peak RSS" in line, line
        else:
            heading = line
            sections[heading] = []
    return sections


def test_bench_wave_against_the_peers_on_one_server(tmp_path: Path) -> None:
    sections = bench(tmp_path)
    turn, version, tui = sections  # in this order
    assert turn == f"one headless turn, median of {ROUNDS} rounds:"
    assert version == "--version (floor: python -c pass):"
    assert tui.startswith("TUI ready, tmux 120x40")
    for names in sections.values():
        assert names[:2] == ["floor", "wave"]


def test_bench_opencode_offline_on_the_same_server(tmp_path: Path) -> None:
    """OpenCode from npm, through its bundled OpenAI-compatible provider, answers the local
    server with no network but loopback (the bench re-runs itself inside `unshare -n`)."""
    opencode = npm_package(OPENCODE) / ".bin" / "opencode"
    sections = bench(tmp_path, OPENCODE_BIN=str(opencode))
    for names in sections.values():
        assert names[:2] == ["floor", "wave"]
        assert "opencode" in names
