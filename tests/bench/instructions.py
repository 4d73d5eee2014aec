"""Instructions a whole command executes, counted by valgrind (callgrind): on a shared, loaded
machine the one figure that does not drift between runs. Slow (~20 s a Python start-up), so
only when `WAVE_BENCH_INSTRUCTIONS=1`; None when valgrind is not installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

ENABLED = os.environ.get("WAVE_BENCH_INSTRUCTIONS") == "1"
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def count_instructions(cmd: Sequence[str], cwd: Path, env: Mapping[str, str]) -> int | None:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    done = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        check=True,
    )
    found = _COLLECTED.search(done.stderr)
    return int(found.group(1)) if found else None


def instruction_lines(
    commands: Mapping[str, Sequence[str]], cwd: Path, env: Mapping[str, str], against: str
) -> list[str]:
    """One line per command: its count in G and its ratio to `against`'s."""
    counts = {name: count_instructions(cmd, cwd, env) for name, cmd in commands.items()}
    base = counts[against]
    lines = []
    for name, count in counts.items():
        if count is None or base is None:
            return ["  (instructions: valgrind not found)"]
        lines.append(f"  {name}: {count / 1e9:.3f} G instructions ({count / base:.2f}x {against})")
    return lines
