"""How cost grows with the conversation: 10, 100, 1,000 and 5,000 turns, each next to its floor in
the same run. CI runs 10 and 100; `WAVE_BENCH_GROWTH=full` all four. Figures:
`WAVE_BENCH_GROWTH=full pytest tests/bench/test_bench_growth.py -m bench -s -n 0`
(`WAVE_BENCH_GROWTH_OUT=docs/growth.json` keeps them for `bench/growth_plot.py`).

- resume, whole process: `wave -p --continue hi` (CPU, wall, peak RSS) against
  `bench/floor_resume.py` (interpreter, httpx, the transcript parsed, one request with all of it);
- restore and the first request's build in the process (the session's restore), against reading
  and parsing the transcript, and encoding the body;
- one request of a running session (main-thread CPU of a turn: build, adapt, encode, send, reply)
  against encoding the body it sent, per MB;
- a turn and the extraction fork after it, against encoding what both sent; the fork's cache share (cached
  tokens of the fork's request ÷ the main request's tokens, the model server's accounting) must
  stay whole.
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bench.growth import NO_COMPACTION, TURNS, keep, prompts_in, write_transcript
from tests.extraction_helpers import is_fork
from tests.model_server import ModelServer
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.features.memory.extraction import ExtractionHook
from wave_tui.session.facade import create_session
from wave_tui.session.factory import create_service

ROOT = Path(__file__).resolve().parents[2]
FLOOR = ROOT / "bench" / "floor_resume.py"
MB = 1024 * 1024


def _rounds(turns: int) -> int:
    return 3 if turns <= 1_000 else 2


def _encode(body: dict[str, Any]) -> bytes:
    """The body as httpx puts it on the wire."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def _env(server: ModelServer, **extra: str) -> dict[str, str]:
    return {
        "WAVE_BASE_URL": server.base_url,
        "WAVE_MODEL": "test-model",
        **NO_COMPACTION,
        **extra,
    }


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


@pytest.fixture
def frozen_heap() -> Iterator[None]:
    """What pytest and earlier tests built is frozen out of the collections a measure may
    trigger, as wave freezes its start-up (`startup_finished`)."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture
def plain_server() -> Iterator[ModelServer]:
    """A model server without prefix-cache accounting (its trie would hold millions of nodes at
    5,000 turns, inside this process's collections)."""
    with ModelServer(caching=False) as server:
        yield server


# -- resume: the whole process -----------------------------------------------------------------


# Forked from pytest, a child's peak RSS would start at pytest's own (Linux keeps the forked
# copy's high-water mark across exec): a bare launcher forks it instead and reports its usage.
LAUNCH = """
import json, os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    json.dump([time.perf_counter() - started, usage.ru_utime + usage.ru_stime,
               usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)], fh)
"""


def _child(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall, CPU (user + system) and peak RSS (bytes) of one process, and what it printed."""
    usage = cwd / ".bench-usage"
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", LAUNCH, str(usage), *cmd],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall, cpu, rss, code = json.loads(usage.read_text())
    assert code == 0, done.stderr
    return wall, cpu, rss, done.stdout


@pytest.mark.parametrize("turns", TURNS)
def test_bench_resume_whole_process(model_server: ModelServer, project: Path, turns: int) -> None:
    transcript = write_transcript(project, turns)
    env = model_server.env(PYTHONPATH=str(ROOT), WAVE_DISABLE_AUTO_MEMORY="1", **NO_COMPACTION)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has its bytecode cached
    wave_cmd = [sys.executable, "-m", "wave_tui", "--continue", "-p", "hi"]
    floor_cmd = [sys.executable, str(FLOOR), model_server.base_url, str(transcript)]
    got: dict[str, list[tuple[float, float, int]]] = {"wave": [], "floor": []}
    for _ in range(_rounds(turns)):
        for name, cmd in (("floor", floor_cmd), ("wave", wave_cmd)):
            model_server.reset()
            wall, cpu, rss, printed = _child(cmd, project, env)
            assert printed.strip() == "OK"
            # The request really held every turn of the transcript.
            assert prompts_in(model_server.last_request.body) == turns
            got[name].append((wall, cpu, rss))
    wave = [_median([s[k] for s in got["wave"]]) for k in range(3)]
    floor = [_median([s[k] for s in got["floor"]]) for k in range(3)]
    size = transcript.stat().st_size
    print(
        f"\nresume {turns:>5} turns ({size / MB:5.1f} MB):"
        f" wave cpu {wave[1] * 1000:7.0f} ms wall {wave[0] * 1000:7.0f} ms rss {wave[2] / MB:5.0f} MiB"
        f" | floor cpu {floor[1] * 1000:6.0f} ms rss {floor[2] / MB:4.0f} MiB"
        f" | {wave[1] / floor[1]:4.2f}x cpu, {wave[2] / floor[2]:4.2f}x rss"
    )
    keep(
        "resume_process",
        turns,
        wave_cpu=wave[1],
        wave_wall=wave[0],
        wave_rss=wave[2],
        floor_cpu=floor[1],
        floor_wall=floor[0],
        floor_rss=floor[2],
        transcript_bytes=size,
    )


# -- restore and the first request, in the process ---------------------------------------------


def _cpu(run: Callable[[], object]) -> tuple[float, Any]:
    started = time.thread_time()
    value = run()
    return time.thread_time() - started, value


@pytest.mark.parametrize("turns", TURNS)
def test_bench_restore_and_first_build(
    plain_server: ModelServer, project: Path, turns: int, frozen_heap: None
) -> None:
    transcript = write_transcript(project, turns)
    env = _env(plain_server, WAVE_DISABLE_AUTO_MEMORY="1")
    restore, build, read, encode = [], [], [], []
    body: dict[str, Any] = {}
    for _ in range(_rounds(turns)):
        cpu, lines = _cpu(
            lambda: [json.loads(r) for r in transcript.read_bytes().split(b"\n") if r.strip()]
        )
        read.append(cpu)
        assert len(lines) == 4 * turns

        def restored() -> AgentService:
            # The session facade's restore, as `wave -p --continue` and the app make it.
            session = create_session(AgentOptions(workdir=project, environ=env, continue_last=True))
            session.restore()
            assert session.service is not None
            return session.service

        cpu, service = _cpu(restored)
        restore.append(cpu)
        assert len(service.messages) == 4 * turns
        cpu, body = _cpu(service.build_request)
        build.append(cpu)
        assert prompts_in(body) == turns
        encode.append(_cpu(lambda: _encode(body))[0])  # noqa: B023 (called at once)
        asyncio.run(service.destroy())
    size = len(_encode(body))
    r, f, rd, en = (_median(x) for x in (restore, build, read, encode))
    print(
        f"\nrestore {turns:>5} turns: {r * 1000:7.1f} ms (read + parse {rd * 1000:6.1f} ms,"
        f" {r / rd:5.1f}x); first build {f * 1000:6.1f} ms (encode {en * 1000:5.1f} ms,"
        f" {f / en:4.1f}x), body {size / MB:5.2f} MB"
    )
    keep(
        "restore",
        turns,
        restore=r,
        read_parse=rd,
        first_build=f,
        encode=en,
        body_bytes=size,
    )


# -- one request of a running session ----------------------------------------------------------


@pytest.mark.parametrize("turns", TURNS)
def test_bench_request_cost(
    plain_server: ModelServer, project: Path, turns: int, frozen_heap: None
) -> None:
    model_server = plain_server
    write_transcript(project, turns)
    env = _env(model_server, WAVE_DISABLE_AUTO_MEMORY="1")
    service = create_service(AgentOptions(workdir=project, environ=env, continue_last=True))
    service.start()
    loop = asyncio.new_event_loop()
    turn_cpu, build_cpu, encode_cpu = [], [], []
    loop.run_until_complete(service.run_turn("warm up"))
    for _ in range(_rounds(turns) + 2):
        before = len(model_server.requests)
        cpu, result = _cpu(lambda: loop.run_until_complete(service.run_turn("hi")))
        assert result.status == "completed" and len(model_server.requests) == before + 1
        turn_cpu.append(cpu)
        build_cpu.append(_cpu(service.build_request)[0])
        sent = model_server.last_request.body
        assert prompts_in(sent) == turns
        encode_cpu.append(_cpu(lambda: _encode(sent))[0])  # noqa: B023 (called at once)
    size = len(_encode(model_server.last_request.body))
    loop.run_until_complete(service.destroy())
    loop.close()
    t, b, e = (_median(x) for x in (turn_cpu, build_cpu, encode_cpu))
    print(
        f"\nrequest {turns:>5} turns, body {size / MB:5.2f} MB: turn cpu {t * 1000:7.1f} ms"
        f" ({t * 1000 / (size / MB):5.1f} ms/MB), of which build {b * 1000:6.1f} ms;"
        f" encode alone {e * 1000:5.1f} ms ({e * 1000 / (size / MB):4.1f} ms/MB); {t / e:4.1f}x"
    )
    keep("request", turns, turn=t, build=b, encode=e, body_bytes=size)


# -- the extraction fork -----------------------------------------------------------------------


@pytest.mark.parametrize("turns", TURNS)
def test_bench_fork_cost(
    model_server: ModelServer, project: Path, turns: int, frozen_heap: None
) -> None:
    write_transcript(project, turns)
    env = _env(model_server)
    fork_cpu, fork_wall, encode_cpu, shares = [], [], [], []
    for _ in range(_rounds(turns)):
        model_server.reset()
        service = create_service(AgentOptions(workdir=project, environ=env, continue_last=True))
        service.start()
        hook = service.extensions.of_type(ExtractionHook)
        assert hook is not None

        async def go() -> tuple[float, float]:
            # The turn and the fork it starts (the snapshot is taken as the turn ends). The
            # collector is off: the server's prefix trie (millions of nodes at 5,000 turns)
            # lives in this process, and walking it is no cost of wave's.
            gc.disable()
            try:
                wall, cpu = time.perf_counter(), time.thread_time()
                await service.run_turn("remember that I like tea")  # noqa: B023 (awaited at once)
                await hook.wait()  # noqa: B023
                return time.perf_counter() - wall, time.thread_time() - cpu
            finally:
                gc.enable()

        wall, cpu = asyncio.run(go())
        asyncio.run(service.destroy())
        main = model_server.requests[0]
        forks = [r for r in model_server.requests if is_fork(r.body)]
        assert not is_fork(main.body) and forks
        assert prompts_in(main.body) == turns and prompts_in(forks[0].body) == turns
        shares.append(forks[0].cached_tokens / len(model_server.tokenize(main.body)))
        fork_cpu.append(cpu)
        fork_wall.append(wall)
        sent = [main, *forks]
        encode_cpu.append(sum(_cpu(lambda r=r: _encode(r.body))[0] for r in sent))
        gc.collect()  # the server's trie of this round goes before the next round
    f, w, e = (_median(x) for x in (fork_cpu, fork_wall, encode_cpu))
    print(
        f"\nturn + fork {turns:>5} turns: cpu {f * 1000:7.1f} ms (wall {w * 1000:7.0f} ms);"
        f" encoding the main and fork requests {e * 1000:6.1f} ms, {f / e:5.1f}x;"
        f" cache share {min(shares):.2%}"
    )
    keep("fork", turns, fork=f, fork_wall=w, encode=e, cache_share=min(shares))
    assert min(shares) == 1.0  # the fork repeats the main request's prefix byte for byte
