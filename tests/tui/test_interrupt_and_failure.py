"""The app after Esc mid-reply (CV3) and after a failed request (CV4): what stays on screen, what
returns to the input, and what the next request carries."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest
from textual.widgets import Markdown

from tests.extraction_helpers import is_fork
from tests.model_server import ModelServer, error, text, tool_call
from tests.tui.conftest import BuildApp, fixed_clock, server_env
from tests.tui.helpers import settle, wait_until
from tests.wire_view import flat, parts
from wave_tui.agent import events as ev
from wave_tui.agent.service import AgentOptions, AgentService
from wave_tui.tui.app import make_app
from wave_tui.tui.messages import AgentEventPosted
from wave_tui.tui.screens.chat import PROMPT_RETURNED
from wave_tui.tui.widgets.chat_items import AssistantMessage, NoticeLine
from wave_tui.tui.widgets.history_input import HistoryInput

NOTE = "[Request interrupted by user]"


def reply_source(app: object) -> str:
    blocks = list(app.chat_screen.query(AssistantMessage))  # type: ignore[attr-defined]
    return blocks[0].query_one(Markdown).source if blocks else ""


def notices(app: object) -> list[str]:
    return [str(n.content) for n in app.chat_screen.query(NoticeLine)]  # type: ignore[attr-defined]


@pytest.mark.req("CV3")
async def test_cv3_esc_keeps_the_partial_reply_and_the_next_prompt_follows_the_note(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    held = threading.Event()
    model_server.enqueue(text("alpha beta gamma delta", hold=held, hold_at=3), text("fresh"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"talk", "enter")
        await wait_until(pilot, lambda: reply_source(app) == "alpha beta ")
        await pilot.press("escape")
        await settle(pilot)
        held.set()
        assert reply_source(app) == "alpha beta "  # the partial reply stays on screen
        assert any("interrupted" in n for n in notices(app))
        await pilot.press(*"next", "enter")
        await settle(pilot)
        messages = model_server.last_request.body["messages"]
        assert flat(messages)[-4:] == [
            ("user", "talk"),
            ("assistant", "alpha beta "),
            ("user", NOTE),
            ("user", "next"),
        ]
        assert parts(messages[-1]) == [NOTE, "next"]  # the abandoned prompt is not inside it
        contents = [m.content for m in app.session.messages()]
        assert contents[-4:] == ["alpha beta ", NOTE, "next", "fresh"]


@pytest.mark.req("CV4")
async def test_cv4_a_failed_prompt_returns_to_the_input_and_is_sent_once(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    model_server.enqueue(error(400, "refused for now"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"hello there", "enter")
        await settle(pilot)
        prompt = app.chat_screen.query_one("#prompt", HistoryInput)
        assert prompt.value == "hello there"
        assert PROMPT_RETURNED in notices(app)
        await pilot.press("enter")  # sent again, as it was
        await settle(pilot)
        users = [
            t for role, t in flat(model_server.last_request.body["messages"]) if role == "user"
        ]
        assert users.count("hello there") == 1 and users[-1] == "hello there"
        assert prompt.value == ""


@pytest.mark.req("CV4")
async def test_cv4_a_returned_prompt_joins_what_the_input_already_holds(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"draft")
        app.post_message(AgentEventPosted(ev.PromptFailed("the failed one", "HTTP 500")))
        await pilot.pause()
        await pilot.pause()
        assert app.chat_screen.query_one("#prompt", HistoryInput).value == "draft\nthe failed one"


@pytest.mark.req("AC3")
async def test_the_chat_says_a_429_retry_and_names_an_unreachable_endpoint(
    build_app: BuildApp, model_server: ModelServer
) -> None:
    """The chat, not only `-p`'s stderr: a rate-limit retry says when it tries again, and an
    endpoint that cannot be reached is named by its URL."""
    model_server.enqueue(error(429, retry_after=0), text("after the wait"))
    app = build_app(server_env(model_server))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"hi", "enter")
        await settle(pilot)
        assert "rate limited — retrying in 0s" in notices(app)
        assert reply_source(app) == "after the wait"
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    url = f"http://127.0.0.1:{closed}/v1"
    app = build_app({"WAVE_BASE_URL": url, "WAVE_API_KEY": "k", "WAVE_MODEL": "m"})
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"hi", "enter")
        await wait_until(pilot, lambda: any(url in n for n in notices(app)), tries=1500)
        await settle(pilot)
        assert any(f"{url}/chat/completions" in n for n in notices(app)), notices(app)


@pytest.mark.req("AC3")
async def test_the_chat_says_a_turn_stopped_at_the_request_cap(
    project: Path, model_server: ModelServer
) -> None:
    model_server.default_reply = tool_call("Glob", {"pattern": "*.none"})
    service = AgentService(
        AgentOptions(
            workdir=project,
            environ=server_env(model_server),
            max_rounds_per_turn=3,
            clock=fixed_clock,
        )
    )
    app = make_app(service.store, service, fixed_clock)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press(*"loop forever", "enter")
        await settle(pilot)
        assert any("after 3 model requests" in n for n in notices(app)), notices(app)
    assert len([r for r in model_server.requests if not is_fork(r.body)]) == 3
