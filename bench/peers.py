"""`wave -p hi` against its floor and the peers installed here, paired round by round, on one
fixed-answer server (`bench/peer_server.py`: chat completions and the Responses API).

Usage: .venv/bin/python bench/peers.py [ROUNDS]   (the interpreter wave is installed in)

A peer is timed when it is installed: Codex (`codex exec`, a provider on the Responses API) when
`codex` is on PATH or `CODEX` names it; OpenCode (`opencode run`, an OpenAI-compatible provider
given in `OPENCODE_CONFIG_CONTENT`) when `opencode` is on PATH, `OPENCODE_BIN` names it (not
`OPENCODE`: OpenCode sets that to 1 for its children), or `tests/node_packages.py` installed
`opencode-ai` under `.cache/node/`. Gemini CLI is left out: it speaks only Google's
generateContent API, never chat completions. Each command gets its own fresh temporary HOME and
project for the run (the warm-up round pays its first-run set-up).
A peer may call out (Codex fetches a cloud config bundle at start, OpenCode the models.dev
catalog), so with a peer the whole run re-executes itself inside `unshare -n` with only loopback
up: nothing leaves the machine, and a peer's wait for the network it cannot reach is part of its
figure unless the peer can be told not to wait (OpenCode: `OPENCODE_DISABLE_MODELS_FETCH`).
Prints, for each, the median wall, CPU and peak RSS of one headless turn, its ratio to wave's
wall, and the median wall and CPU of `--version`.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable  # the interpreter wave is installed in
NODE_CACHE = ROOT / ".cache" / "node"


@dataclass(frozen=True)
class Command:
    turn: list[str]  # one headless turn: prints the server's "OK"
    version: list[str]
    env: dict[str, str] = field(default_factory=dict)  # on top of the shared environment
    tui: list[str] | None = None  # the interactive command, when its readiness can be seen
    prompt: str = ""  # what the TUI shows once it takes input


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # seconds, user + system of the process and every child it waited for
    rss: int  # peak resident set of the largest process in the tree, KiB


def opencode_binary() -> str | None:
    """OpenCode as named, on PATH, or as `tests/node_packages.py` installs it."""
    named = os.environ.get("OPENCODE_BIN") or shutil.which("opencode")
    if named:
        return named
    installed = sorted(NODE_CACHE.glob("opencode-ai@*/node_modules/.bin/opencode"))
    return str(installed[-1]) if installed else None


def peer_commands(url: str) -> dict[str, Command]:
    """The installed peers' commands for one turn against `url`."""
    found: dict[str, Command] = {}
    codex = os.environ.get("CODEX") or shutil.which("codex")
    if codex:
        provider = (
            f'{{name="bench", base_url="{url}", wire_api="responses", env_key="WAVE_API_KEY"}}'
        )
        found["codex"] = Command(
            [
                codex, "exec", "--skip-git-repo-check", "-m", "test-model",
                "-c", "model_provider=bench", "-c", f"model_providers.bench={provider}", "hi",
            ],
            [codex, "--version"],
        )  # fmt: skip
    opencode = opencode_binary()
    if opencode:
        # The provider package ships inside the binary: nothing is installed at run time.
        chat = {
            "npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": url, "apiKey": "bench-key"},
            "models": {"test-model": {}},
        }
        config = {"provider": {"bench": chat}, "model": "bench/test-model"}
        found["opencode"] = Command(
            [opencode, "run", "-m", "bench/test-model", "hi"],
            [opencode, "--version"],
            env={
                "OPENCODE_CONFIG_CONTENT": json.dumps(config),
                # Unreachable here; without these it waits ~3 s for the catalog at every start.
                "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "OPENCODE_DISABLE_AUTOUPDATE": "1",
            },
            tui=[opencode],
            prompt="Ask anything",
        )
    return found


def commands(url: str) -> dict[str, Command]:
    wave = [PYTHON, "-m", "wave_tui"]
    return {
        "floor": Command(
            [PYTHON, str(ROOT / "bench" / "floor_request.py"), url],
            [PYTHON, "-c", "pass"],
            tui=[PYTHON, str(ROOT / "bench" / "bare_app.py")],  # an Input and a Footer
            prompt="Message",
        ),
        "wave": Command([*wave, "-p", "hi"], [*wave, "--version"], tui=wave, prompt="Message wave"),
        **peer_commands(url),
    }


def timed(cmd: list[str], cwd: Path, env: dict[str, str], answer: bytes = b"OK") -> Run:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        # wait4, not Popen.wait: this child's own usage (RUSAGE_CHILDREN would add every
        # earlier run's CPU and report the largest RSS of any of them).
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0 or answer not in out.read():
            raise SystemExit(f"{cmd[0]} failed ({process.returncode}): {err.read()[-500:]!r}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def tui_ready(cmd: list[str], prompt: str, cwd: Path, env: dict[str, str]) -> float:
    """Seconds from start to `prompt` on the screen of a 120x40 tmux pane (polled)."""
    socket_name = f"wave-peers-{uuid.uuid4().hex[:8]}"  # a server per start: none outlives it
    tmux = ["tmux", "-L", socket_name]
    env = {**env, "TERM": "xterm-256color"}  # the tmux server, hence the pane, inherits it
    started = time.perf_counter()
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "120", "-y", "40", "-c", str(cwd), shlex.join(cmd)],
        env=env,
        check=True,
    )
    try:
        while True:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p"], env=env, capture_output=True, text=True
            ).stdout
            if prompt in screen:
                return time.perf_counter() - started
            if time.perf_counter() - started > 60:
                raise SystemExit(f"{cmd[0]}: no {prompt!r} after 60 s:\n{screen}")
            time.sleep(0.01)
    finally:
        subprocess.run([*tmux, "kill-server"], env=env, capture_output=True)


def loopback_only() -> bool:
    """This process's network namespace has no interface but `lo` (asked through netlink:
    /sys/class/net shows the namespace sysfs was mounted in, not this one)."""
    return {name for _, name in socket.if_nameindex()} <= {"lo"}


def isolated(rounds: int) -> None:
    """Run this script again inside a new network namespace with loopback up, and exit."""
    script = f"ip link set lo up && exec {sys.executable} {Path(__file__).resolve()} {rounds}"
    raise SystemExit(subprocess.run(["unshare", "-n", "sh", "-c", script]).returncode)


def measure(
    cmds: dict[str, Command], tmp: Path, rounds: int, base: dict[str, str]
) -> tuple[dict[str, list[Run]], dict[str, list[Run]], dict[str, list[float]]]:
    """Each command's headless turns, `--version` runs and TUI starts, round by round, each in
    its own HOME and project (one peer's first-run files never serve another)."""
    places: dict[str, tuple[Path, dict[str, str]]] = {}
    for name, cmd in cmds.items():
        home, project = tmp / name / "home", tmp / name / "project"
        home.mkdir(parents=True)
        project.mkdir()
        places[name] = (project, {**base, "HOME": str(home), **cmd.env})
    screens = {name: cmd for name, cmd in cmds.items() if cmd.tui}
    for name, cmd in cmds.items():  # warm-up: bytecode, page cache, first-run set-up
        timed(cmd.turn, *places[name])
    for name, cmd in screens.items():
        tui_ready(cmd.tui or [], cmd.prompt, *places[name])
    turns: dict[str, list[Run]] = {name: [] for name in cmds}
    versions: dict[str, list[Run]] = {name: [] for name in cmds}
    ready: dict[str, list[float]] = {name: [] for name in screens}
    for _ in range(rounds):
        for name, cmd in cmds.items():
            turns[name].append(timed(cmd.turn, *places[name]))
            versions[name].append(timed(cmd.version, *places[name], answer=b""))
            if cmd.tui:
                ready[name].append(tui_ready(cmd.tui, cmd.prompt, *places[name]))
    return turns, versions, ready


def main(rounds: int) -> None:
    if peer_commands("http://127.0.0.1:1/v1") and not loopback_only():
        isolated(rounds)
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "peer_server.py"), "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            url = _started(server)
            env = {**os.environ, "WAVE_API_KEY": "bench-key"}
            env |= {"WAVE_BASE_URL": url, "WAVE_MODEL": "test-model"}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            turns, versions, ready = measure(commands(url), Path(tmp), rounds, env)
        finally:
            server.terminate()
    print(f"one headless turn, median of {rounds} rounds:")
    for name, runs in turns.items():
        ratio = statistics.median(r.wall / w.wall for r, w in zip(runs, turns["wave"], strict=True))
        rss = statistics.median(r.rss for r in runs) / 1024
        print(f"{_times(name, runs)}  peak RSS {rss:5.0f} MiB  {ratio:.2f}x wave's wall")
    print("--version (floor: python -c pass):")
    for name, runs in versions.items():
        print(_times(name, runs))
    print("TUI ready, tmux 120x40, start to the prompt on screen (floor: a bare Textual app):")
    for name, seconds in ready.items():
        print(f"  {name:8s} wall {_ms(seconds):5.0f} ms")


def _times(name: str, runs: list[Run]) -> str:
    wall, cpu = _ms(r.wall for r in runs), _ms(r.cpu for r in runs)
    return f"  {name:8s} wall {wall:5.0f} ms  CPU {cpu:5.0f} ms"


def _ms(seconds: Iterable[float]) -> float:
    return statistics.median(seconds) * 1e3


def _started(server: subprocess.Popen[str]) -> str:
    assert server.stdout is not None
    line = server.stdout.readline().strip()
    if not line.startswith("READY "):
        raise SystemExit(f"the server did not start: {line!r}")
    return line.removeprefix("READY ")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 11)
