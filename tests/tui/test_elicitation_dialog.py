"""An MCP server's form in the app (MA3): fields from the schema, pre-filled with its defaults;
accept sends the values, Ctrl+D declines, Escape cancels."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select

from tests.tui.conftest import BuildApp
from tests.tui.helpers import wait_until
from wave_tui.agent import events as ev
from wave_tui.tui.screens.elicitation_dialog import ElicitationDialog

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name"},
        "city": {"type": "string", "default": "Paris"},
        "age": {"type": "integer", "default": 42},
        "ok": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["red", "blue"], "default": "blue"},
    },
    "required": ["name"],
}


async def open_form(pilot: Pilot[None]) -> tuple[ElicitationDialog, asyncio.Future[Any]]:
    app = pilot.app
    future: asyncio.Future[ev.ElicitationAnswer] = asyncio.get_running_loop().create_future()
    app.session._emit(ev.ElicitationRequested("srv", "Who are you?", SCHEMA, future))  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, ElicitationDialog))
    dialog = app.screen
    assert isinstance(dialog, ElicitationDialog)
    await pilot.pause()
    return dialog, future


@pytest.mark.req("MA3")
async def test_ma3_the_form_is_prefilled_with_defaults_and_accepts(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(100, 40)) as pilot:
        dialog, future = await open_form(pilot)
        assert dialog.query_one("#field-1", Input).value == "Paris"
        assert dialog.query_one("#field-2", Input).value == "42"
        assert dialog.query_one("#field-3", Checkbox).value is True
        assert dialog.query_one("#field-4", Select).value == "blue"
        dialog.query_one("#field-0", Input).value = "Ada"
        await pilot.press("ctrl+s")
        await wait_until(pilot, future.done)
        assert future.result() == ev.ElicitationAnswer(
            "accept", {"name": "Ada", "city": "Paris", "age": 42, "ok": True, "color": "blue"}
        )


@pytest.mark.req("MA3")
async def test_ma3_the_form_declines_and_cancels(build_app: BuildApp) -> None:
    app = build_app()
    async with app.run_test(size=(100, 40)) as pilot:
        _dialog, future = await open_form(pilot)
        await pilot.press("ctrl+d")
        await wait_until(pilot, future.done)
        assert future.result() == ev.ElicitationAnswer("decline")
        _dialog, again = await open_form(pilot)
        await pilot.press("escape")
        await wait_until(pilot, again.done)
        assert again.result() == ev.ElicitationAnswer("cancel")
