"""The shared request views (tests/wire_view.py) that many tests read the scripted server with."""

from __future__ import annotations

from typing import Any

import httpx

from tests.model_server import ModelServer, text
from tests.wire_view import chats, is_child, main_chats, tool_messages, tool_names, tool_results
from wave_tui.features.subagents.definitions import GENERAL_PURPOSE_PROMPT


def _body(system: str, *messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "model": "test-model",
        "messages": [{"role": "system", "content": system}, *messages],
        **extra,
    }


def _post(server: ModelServer, body: dict[str, Any]) -> None:
    response = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=10)
    assert response.status_code == 200, response.text


def test_chats_are_the_chat_bodies_in_order_and_main_chats_leave_out_subagents(
    model_server: ModelServer,
) -> None:
    main = _body("You are wave.", {"role": "user", "content": "one"})
    child = _body(GENERAL_PURPOSE_PROMPT, {"role": "user", "content": "task"})
    later = _body("You are wave.", {"role": "user", "content": "two"})
    model_server.enqueue(text("a"), text("b"), text("c"))
    _post(model_server, main)
    assert httpx.get(f"{model_server.base_url}/models", timeout=10).status_code == 200
    _post(model_server, child)
    _post(model_server, later)
    assert chats(model_server) == [main, child, later]
    assert [is_child(b) for b in chats(model_server)] == [False, True, False]
    assert main_chats(model_server) == [main, later]


def test_tool_views_read_names_messages_and_the_text_of_each_result() -> None:
    plain = {"role": "tool", "tool_call_id": "1", "content": "echo: hi"}
    with_image = {
        "role": "tool",
        "tool_call_id": "2",
        "content": [
            {"type": "text", "text": "a picture"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
        ],
    }
    body = _body(
        "s",
        {"role": "user", "content": "go"},
        plain,
        {"role": "assistant", "content": "ok"},
        with_image,
        tools=[{"type": "function", "function": {"name": n}} for n in ("Read", "Bash")],
    )
    assert tool_names(body) == ["Read", "Bash"]
    assert tool_names(_body("s")) == []
    assert tool_messages(body) == [plain, with_image]
    assert tool_results(body) == ["echo: hi", "a picture"]
