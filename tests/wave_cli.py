"""Run the real `wave` command as a process of its own (the public surface).

`run_wave` forks it from the test worker's zygote (`tests/zygote.py`), which has imported wave
already; a test whose subject is the process itself (signals, pipes, what it imports) starts
`WAVE` with `subprocess` instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests import zygote
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
    try:
        proc = zygote.run(WAVE, args, cwd=cwd, env=full_env, input=None, timeout=timeout)
    except subprocess.TimeoutExpired as exc:  # text, as `text=True` gives it
        exc.stdout = _text(exc.stdout or b"")  # type: ignore[assignment]
        exc.stderr = _text(exc.stderr or b"")  # type: ignore[assignment]
        raise
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, _text(proc.stdout), _text(proc.stderr)
    )


def _text(data: bytes | str) -> str:
    """Output as `subprocess.run(..., text=True)` decodes it (locale encoding, newlines
    translated)."""
    import locale

    if isinstance(data, str):
        return data
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")
