"""The chat screen's remaining issue-14 defects (UX6, UX8, UX12, UX13, UX19): each pinned here."""

from __future__ import annotations

from tests.model_server import ModelServer, text
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle
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
