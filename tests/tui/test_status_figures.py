"""The status line's figures (CV11, CV14): a new conversation starts without the old ctx and
cache figures, and the ctx % is of the window the endpoint stated, not of an assumed 128k."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.model_server import ModelServer, text
from tests.providers import providers
from tests.providers.emulator import Call, call, running, say
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.tui.widgets.status_line import StatusLine


@pytest.mark.req("CV14")
async def test_cv14_clear_resets_the_status_lines_ctx_and_cache(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(text("an answer"), text("another"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(120, 40)) as pilot:
        status = app.chat_screen.query_one("#status", StatusLine)
        for prompt in ("question", "again"):
            await pilot.press(*prompt, "enter")
            await settle(pilot)
        before = str(status.content)
        await pilot.press(*"/clear", "enter")
        await settle(pilot)
        after = str(status.content)
    assert "ctx " in before and "cache " in before
    assert "ctx " not in after and "cache " not in after
    assert "test-model" in after  # the rest of the line stays


@pytest.mark.req("CV11")
async def test_cv11_the_status_lines_ctx_percent_is_of_the_window_a_refusal_stated(
    build_app: BuildApp, project: Path
) -> None:
    (project / "big.txt").write_text("".join(f"line {i} of a long file\n" for i in range(900)))
    with running(providers.vllm(window=9000)) as em:
        em.script(call(Call("Read", {"file_path": "big.txt"})), say("Summary."), say("read it"))
        app = build_app(em.env())
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press(*"read big.txt", "enter")
            await settle(pilot)
            line = str(app.chat_screen.query_one("#status", StatusLine).content)
    found = re.search(r"ctx ([\d.]+)k tokens \((\d+)%\)", line)
    assert found is not None, line
    shown_tokens, percent = float(found.group(1)) * 1000, int(found.group(2))
    assert em.rejected and abs(percent - 100 * shown_tokens / 9000) <= 2
    assert percent > 30  # of 9,000 tokens; of 128,000 it would read 5%
