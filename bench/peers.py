"""`wave -p hi` against its floor and the peers installed here, paired round by round, on one
fixed-answer server (`bench/peer_server.py`: chat completions and the Responses API).

Usage: .venv/bin/python bench/peers.py [ROUNDS]   (the interpreter wave is installed in)

A peer is timed when its command is on PATH (or `CODEX` names the binary): Codex
(`codex exec`, a provider on the Responses API). Each run gets a fresh temporary HOME and project.
A peer may call out (Codex fetches a cloud config bundle at start), so with a peer the whole
run re-executes itself inside `unshare -n` with only loopback up: nothing leaves the machine,
and a peer's wait for the network it cannot reach is part of its figure. Prints the median wall
and CPU of each and each one's median ratio to wave's wall.
"""

from __future__ import annotations

import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable  # the interpreter wave is installed in


def peer_commands(url: str) -> dict[str, list[str]]:
    """The installed peers' commands for one turn against `url`."""
    found: dict[str, list[str]] = {}
    codex = os.environ.get("CODEX") or shutil.which("codex")
    if codex:
        provider = (
            f'{{name="bench", base_url="{url}", wire_api="responses", env_key="WAVE_API_KEY"}}'
        )
        found["codex"] = [
            codex, "exec", "--skip-git-repo-check", "-m", "test-model",
            "-c", "model_provider=bench", "-c", f"model_providers.bench={provider}", "hi",
        ]  # fmt: skip
    return found


def commands(url: str) -> dict[str, list[str]]:
    return {
        "floor": [PYTHON, str(ROOT / "bench" / "floor_request.py"), url],
        "wave": [PYTHON, "-m", "wave_tui", "-p", "hi"],
        **peer_commands(url),
    }


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or b"OK" not in done.stdout:
        raise SystemExit(f"{cmd[0]} failed ({done.returncode}): {done.stderr[-500:]!r}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def loopback_only() -> bool:
    """This process's network namespace has no interface but `lo` (asked through netlink:
    /sys/class/net shows the namespace sysfs was mounted in, not this one)."""
    return {name for _, name in socket.if_nameindex()} <= {"lo"}


def isolated(rounds: int) -> None:
    """Run this script again inside a new network namespace with loopback up, and exit."""
    script = f"ip link set lo up && exec {sys.executable} {Path(__file__).resolve()} {rounds}"
    raise SystemExit(subprocess.run(["unshare", "-n", "sh", "-c", script]).returncode)


def main(rounds: int) -> None:
    if peer_commands("http://127.0.0.1:1/v1") and not loopback_only():
        isolated(rounds)
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "peer_server.py"), "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            url = _started(server)
            env = {**os.environ, "HOME": str(home), "WAVE_API_KEY": "bench-key"}
            env |= {"WAVE_BASE_URL": url, "WAVE_MODEL": "test-model"}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            cmds = commands(url)
            for cmd in cmds.values():  # warm-up: bytecode, page cache
                timed(cmd, project, env)
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
            for _ in range(rounds):
                for name, cmd in cmds.items():
                    runs[name].append(timed(cmd, project, env))
        finally:
            server.terminate()
    print(f"one headless turn, median of {rounds} rounds:")
    for name, timings in runs.items():
        wall = statistics.median(w for w, _ in timings) * 1e3
        cpu = statistics.median(c for _, c in timings) * 1e3
        ratio = statistics.median(
            w / v for (w, _), (v, _) in zip(timings, runs["wave"], strict=True)
        )
        print(f"  {name:6s} wall {wall:5.0f} ms  CPU {cpu:5.0f} ms  {ratio:.2f}x wave's wall")


def _started(server: subprocess.Popen[str]) -> str:
    assert server.stdout is not None
    line = server.stdout.readline().strip()
    if not line.startswith("READY "):
        raise SystemExit(f"the server did not start: {line!r}")
    return line.removeprefix("READY ")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 11)
