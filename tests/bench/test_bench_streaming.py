"""Streaming a reply into the chat at 2,000 tokens/s, one token per event.

Wave: the events take the app's real path (`AgentEventPosted` -> chat screen -> reply block).
Baseline, same run: a bare Textual app writing the same tokens to `Markdown.get_stream` at the
same pace. Printed per side: lag from the last token to the final paint (the app idle with the
whole text in its Markdown) and CPU seconds for the stream. Nothing is asserted on time.
Run: `pytest tests/bench/test_bench_streaming.py -s` (`WAVE_BENCH_TOKENS=4000` for longer).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Footer, Input, Markdown

from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.llm.types import Message
from wave_tui.tui.app import make_app
from wave_tui.tui.messages import AgentEventPosted

TOKENS = int(os.environ.get("WAVE_BENCH_TOKENS", "2000"))
RATE = 2000  # tokens per second
BATCH = 4  # tokens per pacing step (4 per 2 ms = 2,000/s)


def _tokens() -> list[str]:
    words = ["The ", "**quick** ", "fox ", "`jumps` ", "over ", "https://example.com ", "dogs. "]
    out = [words[i % len(words)] for i in range(TOKENS)]
    for i in range(50, TOKENS, 50):
        out[i] = "\n\n"  # paragraphs, as a real reply has
    return out


class BareStream(App[None]):
    def compose(self) -> ComposeResult:
        yield Markdown("")
        yield Input()
        yield Footer()


async def _paced(send: Callable[[str], Awaitable[None]], tokens: list[str]) -> float:
    started = time.perf_counter()
    for i in range(0, len(tokens), BATCH):
        for token in tokens[i : i + BATCH]:
            await send(token)
        due = started + (i + BATCH) / RATE
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
    return time.perf_counter()


async def _settled(markdown: Markdown, text: str, pilot: object) -> float:
    while markdown.source != text:
        await asyncio.sleep(0.001)
    await pilot.pause()  # type: ignore[attr-defined]
    return time.perf_counter()


def stream_bare(tokens: list[str]) -> tuple[float, float]:
    async def run() -> tuple[float, float]:
        app = BareStream()
        async with app.run_test(size=(100, 32)) as pilot:
            markdown = app.query_one(Markdown)
            stream = Markdown.get_stream(markdown)
            cpu = time.process_time()
            last = await _paced(stream.write, tokens)
            await stream.stop()
            painted = await _settled(markdown, "".join(tokens), pilot)
            return painted - last, time.process_time() - cpu

    return asyncio.run(run())


def stream_wave(project: Path, tokens: list[str]) -> tuple[float, float]:
    environ = {"WAVE_BASE_URL": "http://127.0.0.1:9/v1", "WAVE_MODEL": "m", "WAVE_LOCAL": "0"}
    service = AgentService(AgentOptions(workdir=project, environ=environ))

    async def run() -> tuple[float, float]:
        app = make_app(service.store, service)
        app.animation_level = "none"
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            app.post_message(AgentEventPosted(ev.AssistantStarted("m1")))
            await pilot.pause()

            async def send(token: str) -> None:
                app.post_message(AgentEventPosted(ev.TextDelta("m1", token)))

            cpu = time.process_time()
            last = await _paced(send, tokens)
            text = "".join(tokens)
            reply = Message(role="assistant", content=text, id="m1")
            app.post_message(AgentEventPosted(ev.AssistantFinished(reply)))
            markdown = app.screen.query_one(".reply", Markdown)
            painted = await _settled(markdown, text, pilot)
            return painted - last, time.process_time() - cpu

    return asyncio.run(run())


@pytest.mark.bench
def test_bench_streaming_2000_tokens_per_second(project: Path) -> None:
    tokens = _tokens()
    bare_lag, bare_cpu = stream_bare(tokens)
    wave_lag, wave_cpu = stream_wave(project, tokens)
    print(
        f"\nstreaming {TOKENS} tokens at {RATE}/s: wave final paint {wave_lag * 1e3:.0f} ms after "
        f"the last token, CPU {wave_cpu:.2f} s; bare Markdown stream {bare_lag * 1e3:.0f} ms, "
        f"CPU {bare_cpu:.2f} s; CPU ratio {wave_cpu / bare_cpu:.2f}x"
    )
