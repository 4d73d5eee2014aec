"""`wave --local` on the real llama.cpp engine: a turn, prompt-cache reuse (F4), clean exits.

Slow by nature (a ~2.4k-token system prompt on a CPU), so each model request here counts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

# The offline engine comes with the `local` extra, which both set-up commands install: without
# it these fail rather than skip.
import xllamacpp  # noqa: F401

from tests.conftest import default_sigint
from tests.local.proxy import Exchange, RecordingProxy
from tests.wave_cli import WAVE
from wave_tui.llm.local_server import (
    BUNDLED_FILE_NAME,
    LocalModelError,
    LocalModelServer,
    bundled_model_path,
)

REPO = Path(__file__).resolve().parents[2]
SERVER_MODULE = "wave_tui.llm.local_server"
# A few output tokens are enough: the base model only echoes, and decoding costs time.
FAST = {"WAVE_MAX_OUTPUT_TOKENS": "12"}
# A guard against a hung engine, not a speed requirement. The turn below sends the full
# ~2.4k-token prompt (system block + every tool's schema) and the fork's requests; on a 2-core
# machine shared with other work (load average ~10) the engine measured ~9 prompt tokens/s and
# ~1.6 output tokens/s, so the turn took 113 s alone and ran past the suite's 120 s
# pytest-timeout under load. Tests that run such a turn carry `SLOW_ENGINE` (the guard + a margin).
HANG_GUARD_S = 600
SLOW_ENGINE = pytest.mark.timeout(HANG_GUARD_S + 60)
T = TypeVar("T")
# The real engine wants both cores and its exits are timed: CI runs these alone (`-m serial`),
# after the parallel run; the module-scoped fixtures start one llama.cpp server for them all.
pytestmark = [pytest.mark.serial, pytest.mark.req("F4")]


@pytest.fixture(scope="module")
def gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bundled_model_path(tmp_path_factory.mktemp("models"))


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAVE_")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PYTHONPATH=str(REPO))
    env.update(extra)
    return env


def wave(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WAVE, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        stdin=subprocess.DEVNULL,
    )


def server_pids(marker: str) -> list[int]:
    """Live local-server processes whose command line mentions `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if SERVER_MODULE in cmdline and marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def wait_for(probe: Callable[[], T], timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := probe():
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


# -- one real turn through a recording proxy (shared by the two tests below) -----------------


@dataclass
class ProxiedTurn:
    proc: subprocess.CompletedProcess[str]
    exchanges: list[Exchange]


@pytest.fixture(scope="module")
def proxied_turn(gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> ProxiedTurn:
    home = tmp_path_factory.mktemp("home")
    project = tmp_path_factory.mktemp("project")
    with (
        LocalModelServer(gguf, model_name="gemma-3-270m") as server,
        RecordingProxy(server.url) as proxy,
    ):
        env = clean_env(
            home,
            WAVE_BASE_URL=f"{proxy.url}/v1",
            WAVE_MODEL=server.model_name,
            WAVE_API_KEY="local",
            **FAST,
        )
        proc = wave("-p", "Say hello.", cwd=project, env=env)
        return ProxiedTurn(proc, list(proxy.exchanges))


@SLOW_ENGINE
def test_a_turn_on_the_local_model_completes(proxied_turn: ProxiedTurn) -> None:
    assert proxied_turn.proc.returncode == 0, proxied_turn.proc.stderr
    assert proxied_turn.proc.stdout.strip()
    assert proxied_turn.exchanges[0].usage is not None


@SLOW_ENGINE
def test_the_extraction_forks_first_request_reuses_the_cached_main_prefix(
    proxied_turn: ProxiedTurn,
) -> None:
    exchanges = proxied_turn.exchanges
    first_fork = next(i for i, e in enumerate(exchanges) if e.is_fork)
    main = [e for e in exchanges[:first_fork] if not e.is_fork][-1]
    fork = exchanges[first_fork]
    shared = len(main.body["messages"])
    assert fork.body["messages"][:shared] == main.body["messages"]
    assert main.prompt_tokens > 1000
    assert fork.cached_tokens >= 0.9 * main.prompt_tokens, (fork.usage, main.usage)


# -- the server never outlives wave ----------------------------------------------------------


@pytest.mark.req("AC10")
@SLOW_ENGINE
def test_with_nothing_configured_wave_runs_on_the_bundled_model_and_stops_it(
    gguf: Path, project: Path, isolated_home: Path
) -> None:
    """AC10: with nothing configured wave runs on the bundled model and stops it."""
    cache = isolated_home / ".cache" / "wave-tui"
    cache.mkdir(parents=True)
    (cache / BUNDLED_FILE_NAME).symlink_to(gguf)  # as if assembled on an earlier run
    env = clean_env(isolated_home, WAVE_DISABLE_AUTO_MEMORY="1", **FAST)
    proc = wave("-p", "Say hello.", cwd=project, env=env)
    assert proc.returncode == 0, proc.stderr
    # The demo model's reply may be template tokens only, which a local reply loses: the
    # turn's answer is in the transcript whatever its text.
    (transcript,) = (isolated_home / ".wave" / "projects").glob("*/*.jsonl")
    roles = [json.loads(line)["role"] for line in transcript.read_text().splitlines()]
    assert roles[-1] == "assistant" and proc.stdout.endswith("\n")
    banner = [line for line in proc.stderr.splitlines() if "runs offline" in line]
    assert len(banner) == 1 and "demo" in banner[0] and "WAVE_BASE_URL" in banner[0]
    assert server_pids(str(cache)) == []


@pytest.mark.req("AC10")
@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name
)
def test_the_server_dies_with_wave_mid_turn(
    sig: signal.Signals, gguf: Path, project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """AC10: the server dies with wave mid turn."""
    model = tmp_path / f"model-{sig.name}.gguf"  # a unique path finds this test's server
    model.symlink_to(gguf)
    env = clean_env(isolated_home, **FAST)
    proc = subprocess.Popen(
        [*WAVE, "-p", "Say hello.", "--local-model", str(model)],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=default_sigint,
    )
    try:
        wait_for(lambda: server_pids(str(model)), 30, "the local server to start")
        # The transcript appears when the turn starts, i.e. once the server answered /health.
        wait_for(
            lambda: list((isolated_home / ".wave" / "projects").glob("*/*.jsonl")),
            60,
            "the turn to start",
        )
        proc.send_signal(sig)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    wait_for(lambda: not server_pids(str(model)), 10, "the local server to exit")
    if sig == signal.SIGINT:
        assert proc.returncode == 130  # wave itself handled Ctrl-C and stopped the server


def test_a_server_that_cannot_load_is_a_clear_error_and_leaves_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model at all")
    with pytest.raises(LocalModelError, match="exited"):
        LocalModelServer(broken, startup_timeout=30).start()
    assert server_pids(str(broken)) == []


def test_a_server_started_from_a_worker_thread_still_dies_with_its_parent(
    gguf: Path, tmp_path: Path
) -> None:
    """PR_SET_PDEATHSIG would fire when the thread ends, so the stdin pipe must do the job."""
    model = tmp_path / "threaded.gguf"
    model.symlink_to(gguf)
    script = (
        "import threading, time, pathlib\n"
        "from wave_tui.llm.local_server import LocalModelServer\n"
        f"server = LocalModelServer(pathlib.Path({str(model)!r}))\n"
        "worker = threading.Thread(target=server.start)\n"
        "worker.start(); worker.join()\n"
        "print('up', flush=True); time.sleep(600)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script],
        env=clean_env(tmp_path),
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == "up"
        assert server_pids(str(model))  # alive after its spawning thread ended
        parent.kill()
        parent.wait(10)
    finally:
        if parent.poll() is None:
            parent.kill()
    wait_for(lambda: not server_pids(str(model)), 10, "the local server to exit")
