"""Run the real `wave` command as a subprocess (the public surface)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.model_server import ModelServer

WAVE = [sys.executable, "-m", "wave_tui"]


def run_wave(
    *args: str,
    cwd: Path,
    server: ModelServer | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    full_env = server.env() if server is not None else dict(os.environ)
    full_env.update(env or {})
    full_env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return subprocess.run(
        [*WAVE, *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
