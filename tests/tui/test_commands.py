"""Slash commands in the app: answered locally in the chat, /memory opens the browser (UX15)."""

from __future__ import annotations

import pytest

from tests.model_server import ModelServer
from tests.tui.conftest import BuildApp, server_env
from tests.tui.helpers import settle
from wave_tui.tui.widgets.chat_items import CommandOutputBlock, UserMessage


@pytest.mark.req("UX15")
async def test_ux15_help_shows_a_local_answer_and_sends_nothing(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"/help", "enter")
        await settle(pilot)
        blocks = list(app.chat_screen.query(CommandOutputBlock))
        assert len(blocks) == 1 and "/compact [focus]" in str(blocks[0].content)
        assert not app.chat_screen.query(UserMessage)
        assert model_server.requests == []


@pytest.mark.req("UX15")
async def test_ux15_memory_command_opens_the_memory_browser(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"/memory", "enter")
        await pilot.pause()
        assert app.current_mode == "memory"
        assert model_server.requests == []
