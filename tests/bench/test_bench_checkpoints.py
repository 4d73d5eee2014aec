"""What checkpointing adds to a turn that writes 100 files of 10 KB (each over an existing file,
so each checkpoint keeps 10 KB of prior bytes). Figure:
`pytest tests/bench/test_bench_checkpoints.py -m bench --benchmark-enable -s`."""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path

from tests.bench.costs import rounds
from tests.model_server import ModelServer, text, tool_calls
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.features.rewind.hook import CheckpointHook
from wave_tui.session.factory import create_service

FILES = 100
SIZE = 10 * 1024
ROUNDS = rounds(5)


def _without_checkpoints(service: AgentService) -> None:
    """The same service with the checkpoint hook taken out of every slot it fills."""
    extensions = service.extensions
    hook = extensions.of_type(CheckpointHook)
    assert hook is not None
    for slot in (
        extensions.preparers,
        extensions.tool_observers,
        extensions.turn_observers,
        extensions.session_observers,
    ):
        if hook in slot:
            slot.remove(hook)


class _Timed:
    """Adds up the time the checkpoint hook's own calls take within the turn."""

    def __init__(self, hook: CheckpointHook) -> None:
        self.seconds = 0.0
        before, after = hook.before_run, hook.after_tool

        async def timed_before(call):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            await before(call)
            self.seconds += time.perf_counter() - start

        async def timed_after(outcome):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            await after(outcome)
            self.seconds += time.perf_counter() - start

        hook.before_run = timed_before  # type: ignore[method-assign]
        hook.after_tool = timed_after  # type: ignore[method-assign]


HOOK_SECONDS: list[float] = []


def _one_turn(model_server: ModelServer, project: Path, round_: int, checkpoints: bool) -> float:
    env = {
        "WAVE_BASE_URL": model_server.base_url,
        "WAVE_MODEL": "test-model",
        "WAVE_DISABLE_AUTO_MEMORY": "1",
    }
    folder = project / f"r{round_}-{checkpoints}"
    folder.mkdir()
    files = [folder / f"f{i:03d}.txt" for i in range(FILES)]
    for path in files:
        path.write_bytes(b"o" * SIZE)
    service = create_service(
        AgentOptions(workdir=project, environ=env, permission_mode="acceptEdits")
    )
    timed = None
    if not checkpoints:
        _without_checkpoints(service)
    else:
        hook = service.extensions.of_type(CheckpointHook)
        assert hook is not None
        timed = _Timed(hook)
    service.start()
    model_server.reset()
    model_server.enqueue(
        tool_calls([("Read", {"file_path": str(p)}) for p in files]),
        text("read"),
        tool_calls([("Write", {"file_path": str(p), "content": "n" * SIZE}) for p in files]),
        text("wrote"),
    )

    async def go() -> float:
        await service.run_turn("read them")
        start = time.perf_counter()
        await service.run_turn("write them")
        took = time.perf_counter() - start
        await service.destroy()
        return took

    took = asyncio.run(go())
    if timed is not None:
        HOOK_SECONDS.append(timed.seconds)
    assert all(p.read_bytes() == b"n" * SIZE for p in files)
    return took


def test_bench_checkpoint_overhead_on_a_turn_writing_100_files(
    benchmark, model_server: ModelServer, project: Path
) -> None:
    times: dict[bool, list[float]] = {True: [], False: []}

    def once() -> None:
        for checkpoints in (False, True):  # interleaved: both see the same machine load
            times[checkpoints].append(
                _one_turn(model_server, project, len(times[checkpoints]), checkpoints)
            )

    benchmark.pedantic(once, rounds=ROUNDS, iterations=1)
    plain, kept = statistics.median(times[False]), statistics.median(times[True])
    hook = statistics.median(HOOK_SECONDS)
    benchmark.extra_info["turn_without_s"] = plain
    benchmark.extra_info["turn_with_s"] = kept
    benchmark.extra_info["hook_s"] = hook
    print(
        f"\nturn writing {FILES} files of {SIZE // 1024} KB: {plain * 1000:.0f} ms without "
        f"checkpoints, {kept * 1000:.0f} ms with ({kept / plain - 1:+.1%}, end to end); "
        f"the checkpoint hook's own calls: {hook * 1000:.1f} ms ({hook / plain:.2%} of the turn)"
    )
