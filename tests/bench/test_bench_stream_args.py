"""X8: 8 MB streamed as tool-call arguments costs about what the same bytes cost as text.

Figures: `pytest tests/bench/test_bench_stream_args.py -m bench --benchmark-enable`. Both stream the same
8 MiB in 1 KiB deltas from the provider emulator over real HTTP; only the delta kind differs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from tests.providers.emulator import Call, Emulator, Style, call, running, say
from wave_tui.llm.client import ClientConfig, ModelClient

SIZE = 8 * 1024 * 1024
PIECE = 1024
PAYLOAD = "x" * SIZE
BODY = {"model": "m", "messages": [{"role": "user", "content": "write it"}]}


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with running(Emulator(style=Style(arg_piece=PIECE, text_piece=PIECE, usage="none"))) as em:
        yield em


def _once(em: Emulator) -> tuple[int, int]:
    async def go() -> tuple[int, int]:
        client = ModelClient(ClientConfig(base_url=em.base_url))
        try:
            reply = await client.stream_chat(BODY)
        finally:
            await client.aclose()
        args = sum(len(c.arguments) for c in reply.tool_calls)
        return len(reply.content), args

    return asyncio.run(go())


@pytest.mark.req("X8")
@pytest.mark.bench
def test_bench_x8_8mb_as_tool_arguments(benchmark, emulator: Emulator) -> None:
    def once() -> tuple[int, int]:
        emulator.script(call(Call("Write", {"file_path": "big.txt", "content": PAYLOAD})))
        return _once(emulator)

    _, args = benchmark.pedantic(once, rounds=3, iterations=1)
    assert args == len(json.dumps({"file_path": "big.txt", "content": PAYLOAD}))


@pytest.mark.req("X8")
@pytest.mark.bench
def test_bench_x8_8mb_as_text(benchmark, emulator: Emulator) -> None:
    def once() -> tuple[int, int]:
        emulator.script(say(PAYLOAD))
        return _once(emulator)

    text, _ = benchmark.pedantic(once, rounds=3, iterations=1)
    assert text == SIZE
