"""The chat at 80×24 (UX13): status line, footer with F3, the background indicator."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.model_server import ModelServer, text
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.agent import events as ev

pytestmark = [pytest.mark.usefixtures("frozen_time"), pytest.mark.req("UX13")]


@pytest.mark.req("F3")
def test_chat_at_80x24_with_an_extraction_running(
    snap_compare: Any, build_app: BuildApp, model_server: ModelServer
) -> None:
    """A reply, the permission mode, ctx, and the extraction indicator top right; F3 in the
    footer."""
    model_server.enqueue(text("Here is **the answer**, in one short paragraph."))
    app = build_app(server_env(model_server))

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        await pilot.press("shift+tab")
        assert app.session.service is not None
        app.session.service.publish(ev.BackgroundChanged("extraction", True, "saving"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
