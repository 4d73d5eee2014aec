"""The chat screen's remaining issue-14 defects (UX6, UX8, UX12, UX13, UX19): each pinned here."""

from __future__ import annotations

import dataclasses

from tests.model_server import ModelServer, text
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.tui.widgets.chat_items import NoticeLine
from wave_tui.tui.widgets.status_line import StatusLine


async def test_ux19_status_line_shows_ctx_as_tokens_then_percent(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(text("ok"))
    app = build_app({**server_env(model_server), "WAVE_MAX_INPUT_TOKENS": "100000"})
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        line = str(app.chat_screen.query_one("#status", StatusLine).render())
    assert "tokens (" in line, line
    assert "%) tokens" not in line, line


async def test_ux12_a_reply_cut_at_the_output_limit_says_so_in_the_chat(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(dataclasses.replace(text("the answer is"), cut=True))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        lines = [str(n.render()) for n in app.chat_screen.query(NoticeLine)]
    assert lines == ["reply cut at the output limit"]
