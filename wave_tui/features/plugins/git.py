"""The system `git`, run for markets and plugins with a time limit and never a prompt.

Every call is bounded by `WAVE_PLUGIN_GIT_TIMEOUT_MS` (default 120000): past it the whole process
group is killed and the call fails with one line. Clones are shallow; nothing asks for a
password (a URL that needs one fails at once); no hook or other program a repository's config
names runs (`config/git_command.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping
from pathlib import Path

from wave_tui.config.git_command import (
    GIT_PROGRAM,
    UPLOAD_PACK_OPTION,
    UnsafeRepositoryError,
    network_git_env,
)
from wave_tui.features.plugins.state import PluginError

GIT_TIMEOUT_ENV = "WAVE_PLUGIN_GIT_TIMEOUT_MS"
DEFAULT_GIT_TIMEOUT_MS = 120_000
KILL_GRACE_S = 2.0


def git_timeout_s(environ: Mapping[str, str] | None = None) -> float:
    raw = (os.environ if environ is None else environ).get(GIT_TIMEOUT_ENV, "")
    try:
        value = int(raw)
    except ValueError:
        value = DEFAULT_GIT_TIMEOUT_MS
    return (value if value > 0 else DEFAULT_GIT_TIMEOUT_MS) / 1000


# req: PG7
async def run_git(*args: str, cwd: Path | None = None, what: str = "git") -> str:
    """git's standard output; PluginError with one line when it fails or runs out of time."""
    timeout = git_timeout_s()
    try:
        env = network_git_env(repository=None if cwd is None else cwd / ".git")
    except UnsafeRepositoryError as exc:
        raise PluginError(f"{what}: {exc}") from exc
    try:
        proc = await asyncio.create_subprocess_exec(
            GIT_PROGRAM,
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,  # no program a repository's config names (HR2)
            start_new_session=True,  # the group is killed on time-out, helpers included
        )
    except OSError as exc:
        raise PluginError(f"{what}: cannot run git ({exc.strerror or exc})") from exc
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        await _kill(proc)
        raise PluginError(
            f"{what}: git gave no answer within {timeout:g} s ({GIT_TIMEOUT_ENV})"
        ) from None
    except asyncio.CancelledError:
        await _kill(proc)
        raise
    if proc.returncode != 0:
        raise PluginError(f"{what}: {_last_line(err) or f'git exited with {proc.returncode}'}")
    return out.decode("utf-8", "replace")


async def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError, ProcessLookupError):
        await asyncio.wait_for(proc.wait(), KILL_GRACE_S)


def _last_line(err: bytes) -> str:
    lines = [line.strip() for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or [""])[-1]


async def shallow_clone(url: str, target: Path, what: str) -> str:
    """Clone `url` at depth 1 into `target` (which must not exist); returns the commit."""
    await run_git("clone", "--depth", "1", "--quiet", "--", url, str(target), what=what)
    return await head_commit(target, what)


async def fetch_latest(checkout: Path, what: str) -> str:
    """Fetch the remote's default branch at depth 1 and move the checkout to it."""
    await run_git(
        "fetch", UPLOAD_PACK_OPTION, "--depth", "1", "--quiet", "origin", cwd=checkout, what=what
    )
    await run_git("reset", "--hard", "--quiet", "FETCH_HEAD", cwd=checkout, what=what)
    return await head_commit(checkout, what)


async def head_commit(checkout: Path, what: str) -> str:
    return (await run_git("rev-parse", "HEAD", cwd=checkout, what=what)).strip()
