"""Run many `wave` processes at once (each in its own HOME and project) for the black-box
families; the sleeping ones (retries, timeouts) overlap, so a family costs about its slowest case."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests import zygote

WAVE = [sys.executable, "-m", "wave_tui"]
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Run:
    args: Sequence[str]
    stdin: bytes = b""
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 60


@dataclass(frozen=True)
class Result:
    code: int | None  # None: it did not end within the timeout
    stdout: str
    stderr: str
    elapsed_s: float


def run(spec: Run, home: Path, cwd: Path, base_env: dict[str, str]) -> Result:
    import time

    env = {k: v for k, v in os.environ.items() if not k.startswith("WAVE_")}
    env.update(base_env)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PYTHONPATH=str(ROOT))
    env.update(spec.env)
    started = time.monotonic()
    try:
        proc = zygote.run(WAVE, spec.args, cwd=cwd, env=env, input=spec.stdin, timeout=spec.timeout)
    except subprocess.TimeoutExpired as exc:
        return Result(None, _text(exc.stdout), _text(exc.stderr), time.monotonic() - started)
    return Result(
        proc.returncode, _text(proc.stdout), _text(proc.stderr), time.monotonic() - started
    )


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


def run_all(jobs: list[Callable[[], str | None]], workers: int = 4) -> list[str | None]:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: job(), jobs))
